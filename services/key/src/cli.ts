import { runCli } from './cli/run-cli';

// Operator CLI, run from the repo root: `pnpm cli keys create --email <email> --plan business`.
// Connects to NATS only; it never touches the database and never logs a key.
process.exitCode = await runCli({
  args: process.argv.slice(2),
  out: {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
  },
});
