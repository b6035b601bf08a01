// The Python client (packages/python) runs its own pytest suite against a real devnet and relayer:
// a virtual environment on the machine's Python (Debian's python3) gets `pip install ./packages/python`
// and pytest (test/support/python.ts: reused while its inputs are unchanged; pip reaches only PyPI),
// `relay serve` starts on free ports, and pytest runs with RELAY_DEVNET_MANIFEST naming its
// devnet.json. Its tests sign with eth-account against the golden vectors and pay over real HTTP:
// approved (read on-chain), held, refused with a code, retried with the same idempotency key (paid
// once), polled at SPEC.md's cadence. This test passes only when every one of them passed.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLiveRelay, type LiveRelay } from "../cli/support/live.ts";
import { pythonPackageDir, pythonVenv } from "../support/python.ts";

const run = promisify(execFile);

let live: LiveRelay;
let python: string;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "relay-pytest-"));
  [live, { python }] = await Promise.all([startLiveRelay("relay-pytest-live-"), pythonVenv()]);
}, 600_000);

afterAll(async () => {
  await live?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  output: string;
  counts: { tests: number; failures: number; errors: number; skipped: number };
  cases: string[];
}

/** Runs pytest on the package's tests, in the venv, against the live relay. */
async function pytest(): Promise<Outcome> {
  const junit = path.join(work, "junit.xml");
  const args = ["-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfEs", `--junitxml=${junit}`];
  const env = { ...process.env, RELAY_DEVNET_MANIFEST: path.join(live.stateDir, "devnet.json"), PYTHONDONTWRITEBYTECODE: "1" };
  let code = 0;
  let output: string;
  try {
    const done = await run(python, args, { cwd: pythonPackageDir, env, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
    output = done.stdout + done.stderr;
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== "number") throw error;
    code = failed.code;
    output = (failed.stdout ?? "") + (failed.stderr ?? "");
  }
  const xml = readFileSync(junit, "utf8");
  const suite = /<testsuite\b[^>]*>/.exec(xml)?.[0] ?? "";
  const count = (name: string): number => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1] ?? NaN);
  const cases = [...xml.matchAll(/<testcase classname="([^"]+)" name="([^"]+)"/g)].map((m) => `${m[1]}::${m[2]}`);
  return { code, output, counts: { tests: count("tests"), failures: count("failures"), errors: count("errors"), skipped: count("skipped") }, cases };
}

describe("the Python client's own pytest suite, against a live devnet and relayer", () => {
  it("imports relay_client from the venv it was pip-installed into, not from the sources", async () => {
    const { stdout } = await run(python, ["-c", "import relay_client, eth_account, httpx; print(relay_client.__file__)"], { cwd: path.dirname(pythonPackageDir), encoding: "utf8" });
    expect(stdout.trim()).toMatch(/\.toolchain\/python-venv\/lib\/python3\.\d+\/site-packages\/relay_client\/__init__\.py$|site-packages\/relay_client\/__init__\.py$/);
    expect(stdout).not.toContain(path.join(pythonPackageDir, "src"));
  });

  it("passes every test: signing vectors, approved, held, refused, retried once, polled", { timeout: 300_000 }, async () => {
    const outcome = await pytest();
    expect(outcome.counts, outcome.output).toMatchObject({ failures: 0, errors: 0, skipped: 0 });
    expect(outcome.code, outcome.output).toBe(0);
    expect(outcome.counts.tests).toBeGreaterThanOrEqual(50);
    const names = outcome.cases.join("\n");
    for (const name of [
      "test_signing_vectors::test_signature_by_a_local_account[payment-intent]",
      "test_signing_vectors::test_digest_and_domain_separator[review-approval]",
      "test_devnet_sync::test_an_approved_payment_lands_on_chain",
      "test_devnet_sync::test_a_payment_held_for_review_stays_pending_and_polling_gives_up_with_a_typed_error",
      "test_devnet_sync::test_refused_above_the_per_transaction_cap_with_its_code_not_retried",
      "test_devnet_sync::test_a_500_rpc_error_is_retried_with_the_same_key_and_pays_once",
      "test_devnet_sync::test_a_429_is_retried_after_retry_after_then_ends_with_the_typed_error",
      "test_devnet_sync::test_polling_follows_the_ai_then_the_review_cadence_until_the_review_approves",
      "test_devnet_async::test_async_resolve_polls_a_held_payment_at_the_review_cadence",
      "test_devnet_async::test_async_pays_refuses_and_retries_once",
    ]) {
      expect(names).toContain(name);
    }
  });
});
