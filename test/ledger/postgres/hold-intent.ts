// A relayer instance frozen in the middle of an intent claim, for instance-loss tests: opens the
// PostgreSQL store at argv[2], claims intent argv[3] of vault argv[4] in a transaction (lock
// taken, request created, not committed), prints "holding" and waits there until it is killed or
// stopped. argv[5], if given, is the store's idle-transaction timeout in ms.
import { openPostgresStore } from "../../../src/ledger/postgres/index.ts";

const [url, intentHash, vault, idle] = process.argv.slice(2) as [string, string, string, string | undefined];
const store = await openPostgresStore(url, idle ? { idleTransactionTimeoutMs: Number(idle) } : {});
setInterval(() => {}, 60_000); // stay alive until killed
await store.transaction(async (tx) => {
  if (await tx.findByIntentHash(84532, vault, intentHash)) throw new Error("already claimed");
  await tx.createRequest({
    kind: "payment",
    chainId: 84532,
    vault,
    bot: "0x2222222222222222222222222222222222222222",
    intentHash,
    idempotencyKey: "00000000-0000-4000-8000-00000000dead",
    fingerprint: "fp-dead",
    usdValue: 1n,
    body: "{}",
    deadline: 1n,
  });
  process.stdout.write("holding\n");
  await new Promise(() => {});
});
