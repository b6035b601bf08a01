// Process entry point (bin/relay runs this): real streams, signals, exit code.
import { main } from "./main.ts";
import { Interrupted } from "./io.ts";

const controller = new AbortController();
let interrupts = 0;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130); // a second Ctrl-C does not wait for a clean shutdown
    controller.abort(new Interrupted(signal));
  });
}

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.exitCode = code;
