import { runCli } from './cli/run-cli';

// Operator CLI, run from the repo root: `pnpm cli keys create --email <email> --plan business`.
// Connects to NATS only; it never touches the database and never logs a key.
const readStdin = async (): Promise<string> => {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
};

process.exitCode = await runCli({
  args: process.argv.slice(2),
  readStdin,
  out: {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
  },
});
