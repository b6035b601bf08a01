// A real reverse proxy for tests: Debian's nginx (`npm test` installs it when missing, through
// scripts/test-deps.sh) in front of several relayer instances, round-robin, on a free loopback port.
// Its configuration, pid file, logs and temporary files live in a temporary directory; it runs in
// the foreground (`daemon off`) as our child, so the PID we hold is its master's, and stop() ends
// exactly that process.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./free-port.ts";

/** A running proxy. */
export interface NginxProxy {
  /** `http://127.0.0.1:<port>`: requests here go to the upstreams in turn. */
  url: string;
  /** Ends nginx (the PID this started) and removes its directory. */
  stop(): Promise<void>;
  /** nginx's master process id. */
  pid: number;
  /** The temporary directory holding its configuration, logs and temporary files. */
  dir: string;
  /** The access log so far (one line per request: the upstream that served it, then the request). */
  accessLog(): string;
}

/** The nginx binary: RELAY_NGINX, Debian's /usr/sbin/nginx, or `nginx` on PATH. */
function nginxBinary(): string {
  if (process.env.RELAY_NGINX) return process.env.RELAY_NGINX;
  return existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx";
}

/** `host:port` of an upstream given as a URL (`http://127.0.0.1:8080`) or as `host:port`. */
function hostPort(upstream: string): string {
  if (!/^[a-z]+:\/\//.test(upstream)) return upstream;
  const url = new URL(upstream);
  return `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
}

/**
 * The configuration: one upstream group, round-robin; a request whose upstream cannot be reached
 * (refused connection, timeout) goes to the next one, and that upstream is left alone for a few
 * seconds. A request already sent is never sent again elsewhere for POST (nginx's default for
 * non-idempotent methods), so a payment cannot run twice through the proxy.
 */
export function nginxConfig(options: { dir: string; port: number; upstreams: readonly string[] }): string {
  const { dir, port, upstreams } = options;
  const at = (name: string) => path.join(dir, name);
  return `# relay test proxy: round-robin over ${upstreams.length} instances, loopback only.
daemon off;
worker_processes 1;
pid ${at("nginx.pid")};
error_log ${at("error.log")} warn;
events { worker_connections 1024; }
http {
  log_format upstream '$upstream_addr $request $status';
  access_log ${at("access.log")} upstream;
  client_body_temp_path ${at("client_body")};
  proxy_temp_path ${at("proxy")};
  fastcgi_temp_path ${at("fastcgi")};
  uwsgi_temp_path ${at("uwsgi")};
  scgi_temp_path ${at("scgi")};
  upstream relay {
${upstreams.map((u) => `    server ${hostPort(u)} max_fails=1 fail_timeout=5s;`).join("\n")}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://relay;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
      proxy_read_timeout 120s;
    }
  }
}
`;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Proxies of this process not yet stopped, ended if the process exits first. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGTERM");
});

/**
 * Starts nginx in front of `upstreams` (URLs or host:port), round-robin, on `port` when given (e.g.
 * one the upstreams were told is their public address), else on a free loopback port.
 */
export async function startNginx(upstreams: readonly string[], options: { port?: number } = {}): Promise<NginxProxy> {
  if (upstreams.length === 0) throw new Error("startNginx needs at least one upstream");
  const dir = mkdtempSync(path.join(tmpdir(), "relay-nginx-"));
  // As root, nginx's workers run as an unprivileged user that must reach the temporary files.
  chmodSync(dir, 0o755);
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    const config = path.join(dir, "nginx.conf");
    writeFileSync(config, nginxConfig({ dir, port, upstreams }));
    try {
      const child = await launch(config, dir, port);
      return {
        url: `http://127.0.0.1:${port}`,
        pid: child.pid!,
        dir,
        accessLog: () => (existsSync(path.join(dir, "access.log")) ? readFileSync(path.join(dir, "access.log"), "utf8") : ""),
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            const exited = new Promise((resolve) => child.once("exit", resolve));
            child.kill("SIGTERM"); // fast shutdown
            await exited;
          }
          running.delete(child);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch (error) {
      // The port may have been taken between freePort and nginx's bind: try another.
      if (attempt >= 3 || options.port !== undefined) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
}

async function launch(config: string, dir: string, port: number): Promise<ChildProcess> {
  const log: string[] = [];
  // -e: the log of startup errors, before the configuration's error_log is open.
  const child = spawn(nginxBinary(), ["-c", config, "-p", dir, "-e", path.join(dir, "startup.log")], { stdio: ["ignore", "ignore", "pipe"] });
  child.stderr!.on("data", (chunk: Buffer) => log.push(chunk.toString()));
  running.add(child);
  const exited = new Promise<never>((_, reject) => {
    child.once("error", (error) => reject(new Error(`nginx could not start (${error.message}): run \`bash scripts/test-deps.sh\` (npm test does), which installs Debian's nginx`)));
    child.once("exit", (code, signal) => {
      running.delete(child);
      const errors = existsSync(path.join(dir, "error.log")) ? readFileSync(path.join(dir, "error.log"), "utf8") : "";
      reject(new Error(`nginx exited (${code ?? signal}) while starting:\n${log.join("")}${errors}`));
    });
  });
  exited.catch(() => {});
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (await Promise.race([accepts(port), exited])) return child;
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      throw new Error(`nginx did not accept connections within 15 s:\n${log.join("")}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
