// The state directory (manifests, ledger, cli.json): `--state-dir` on every command, else the
// RELAY_STATE_DIR environment variable, else `.relay` in the current directory. One option and one
// resolver, so that every command agrees on where the state is.
import path from "node:path";
import { Option } from "commander";
import { defaultStateDir } from "../paths.ts";

export const STATE_DIR_ENV = "RELAY_STATE_DIR";

/** The `--state-dir` option; `what` says what the command keeps there. No commander default: the
 *  environment (read from the CLI's io, not process.env) comes before `.relay`. */
export function stateDirOption(what: string): Option {
  return new Option("--state-dir <dir>", `${what} (env ${STATE_DIR_ENV}; default ${defaultStateDir})`);
}

/** The absolute state directory for a command's `--state-dir` value. */
export function resolveStateDir(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, cwd: string): string {
  const fromEnv = env[STATE_DIR_ENV];
  return path.resolve(cwd, flag ?? (fromEnv !== undefined && fromEnv !== "" ? fromEnv : defaultStateDir));
}
