import type { Manifest } from './manifest';

/** The objects of one kind; with `component`, only those labelled app.kubernetes.io/component=<component>. */
export const manifestsOf = (manifests: readonly Manifest[], kind: string, component?: string): Manifest[] =>
  manifests.filter(
    (m) =>
      m.kind === kind &&
      (component === undefined || m.metadata.labels?.['app.kubernetes.io/component'] === component),
  );

/** The one object of `kind` named `name`; throws when it is not there. */
export const findManifest = (manifests: readonly Manifest[], kind: string, name: string): Manifest => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) {
    const names = manifests.filter((m) => m.kind === kind).map((m) => m.metadata.name);
    throw new Error(`no ${kind} named ${name}; rendered: ${names.join(', ') || 'none'}`);
  }
  return found;
};
