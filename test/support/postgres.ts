// A real PostgreSQL server for tests: Debian's package, the server binaries the npm registry ships
// (unpacked into .toolchain/postgres), or any PostgreSQL whose binaries are in RELAY_PG_BIN or on
// pg_config's path; `npm test` provisions one first (scripts/test-deps.sh). Each
// server lives in its own temporary directory (data, unix socket, log), listens on a free loopback
// port, and is ended by stop() (or when the test process exits). PostgreSQL refuses to run as
// root: as root, the server runs as the `postgres` user the Debian package creates, through
// setpriv, which execs (so the PID we hold is the server's own); otherwise as the current user.
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { projectRoot } from "../../src/paths.ts";
import { freePort } from "./free-port.ts";

/** A running server. */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/relay`: a database created for the caller. */
  url: string;
  /** Creates a fresh, empty database on this server and returns its URL (one per test or suite). */
  newDatabase(): Promise<string>;
  /** Ends the server (the PID this started) and removes its directory. */
  stop(): Promise<void>;
  /** The server's process id (the postmaster's own: setpriv execs it). */
  pid: number;
  /** The temporary directory holding its data, socket and nothing else. */
  dir: string;
}

/** Options of {@link startPostgres}. */
export interface StartPostgresOptions {
  /**
   * fsync the server's writes (default false: a test server's data need not survive a power
   * failure, and 2-core CI machines spend much of their time in fsync otherwise). Transactions
   * keep their semantics either way.
   */
  fsync?: boolean;
}

/**
 * The directory holding initdb and postgres: RELAY_PG_BIN, Debian's newest version, the npm-shipped
 * binaries scripts/test-deps.sh unpacks into the toolchain directory, or pg_config's.
 */
export function postgresBinDir(): string {
  const fromEnv = process.env.RELAY_PG_BIN;
  if (fromEnv) return fromEnv;
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(path.join(debian, v, "bin", "postgres")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(debian, versions[0], "bin");
  }
  const fromNpm = path.join(process.env.RELAY_TOOLCHAIN_DIR ?? path.join(projectRoot, ".toolchain"), "postgres", "bin");
  if (existsSync(path.join(fromNpm, "postgres"))) return fromNpm;
  try {
    return execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    throw new Error("PostgreSQL not found: run `bash scripts/test-deps.sh` (npm test does), which installs it, or set RELAY_PG_BIN");
  }
}

/** As root: the `postgres` user's ids and the setpriv prefix that runs a program as it. */
function runAs(): { prefix: string[]; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  let uid: number;
  let gid: number;
  try {
    uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  } catch {
    throw new Error("running as root needs the `postgres` user: run `bash scripts/test-deps.sh` (npm test does; Debian's postgresql package creates it)");
  }
  return { prefix: ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--"], uid, gid };
}

/**
 * The temporary directory, if the `postgres` user can reach it (every ancestor searchable by
 * others); /tmp otherwise (a root-only TMPDIR).
 */
function tmpdirOthersReach(): string {
  const base = tmpdir();
  for (let dir = base; ; dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return "/tmp";
    if (dir === path.dirname(dir)) return base;
  }
}

/** Servers of this process not yet stopped, ended if the process exits first. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGQUIT");
});

let databases = 0;

/** Starts a PostgreSQL server (see the file's header) with a database `relay`. */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const as = runAs();
  const dir = mkdtempSync(path.join(as.uid === undefined ? tmpdir() : tmpdirOthersReach(), "relay-pg-"));
  if (as.uid !== undefined) chownSync(dir, as.uid, as.gid!);
  const data = path.join(dir, "data");
  const run = (program: string, args: string[]) => [...as.prefix, path.join(bin, program), ...args];
  try {
    const [initdb, ...initArgs] = run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
    execFileSync(initdb!, initArgs, { stdio: "pipe" });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(error as { stderr?: Buffer }).stderr?.toString() ?? error}`);
  }
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      const child = await launch(run, data, dir, port, options);
      return server(child, dir, port);
    } catch (error) {
      // Another process may have taken the port between freePort and the server's bind.
      if (attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
}

/** Starts `postgres` in the foreground (our child) and waits until it accepts connections. */
async function launch(
  run: (program: string, args: string[]) => string[],
  data: string,
  dir: string,
  port: number,
  options: StartPostgresOptions,
): Promise<ChildProcess> {
  const settings = {
    listen_addresses: "127.0.0.1",
    port: String(port),
    unix_socket_directories: dir,
    fsync: options.fsync ? "on" : "off",
    full_page_writes: options.fsync ? "on" : "off",
    max_connections: "200",
    logging_collector: "off",
  };
  const args = ["-D", data, ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`])];
  const [program, ...rest] = run("postgres", args);
  const log: string[] = [];
  const child = spawn(program!, rest, { stdio: ["ignore", "ignore", "pipe"] });
  child.stderr!.on("data", (chunk: Buffer) => log.push(chunk.toString()));
  running.add(child);
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code, signal) => {
      running.delete(child);
      reject(new Error(`postgres exited (${code ?? signal}) while starting:\n${log.join("")}`));
    }),
  );
  exited.catch(() => {});
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await Promise.race([connects(port), exited]);
    if (ready) return child;
    if (Date.now() > deadline) {
      child.kill("SIGQUIT");
      throw new Error(`postgres did not accept connections within 30 s:\n${log.join("")}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function connects(port: number): Promise<boolean> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

function server(child: ChildProcess, dir: string, port: number): Promise<PostgresServer> {
  const admin = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const newDatabase = async (): Promise<string> => {
    const name = `relay_${process.pid}_${++databases}`;
    const client = new pg.Client({ connectionString: admin("postgres") });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    return admin(name);
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      // SIGINT: fast shutdown (open sessions are ended); SIGQUIT if it takes too long.
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGQUIT"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    running.delete(child);
    rmSync(dir, { recursive: true, force: true });
  };
  return (async () => {
    const client = new pg.Client({ connectionString: admin("postgres") });
    await client.connect();
    await client.query("CREATE DATABASE relay");
    await client.end();
    return { url: admin("relay"), newDatabase, stop, pid: child.pid!, dir };
  })();
}
