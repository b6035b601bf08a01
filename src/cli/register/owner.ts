// Registers the vault owner's commands (`relay owner …`, sent on-chain with the owner key) and
// `relay fund` (mint devnet tokens).
import type { Command } from "commander";
import type { CliIO } from "../io.ts";
import { examples, withOwnerOptions, withSettingsOptions } from "./common.ts";

const collect = (value: string, previous: string[] = []) => [...previous, value];

function limitOptions(command: Command): Command {
  return command
    .option("--max-per-tx <usd>", "largest single request in USD (0 = no cap)")
    .option("--max-rebalance <usd>", "largest swap in USD (0 = no cap)")
    .option("--daily-limit <usd>", "USD per rolling 24 h (shorthand for --limit <usd>/1d)")
    .option("--limit <usd/window[/count]>", "rolling spend window, repeatable (at most 5): e.g. 1000/1h or 5000/1d/20", collect)
    .option("--clear-limits", "remove every spending window")
    .option("--ai-threshold <usd>", "AI scan from this amount in USD (0 = never by amount)")
    .option("--require-ai", "every request gets an AI scan")
    .option("--no-require-ai", "no AI scan unless a threshold or burst triggers it")
    .option("--require-review", "every request is held for the owner's review")
    .option("--no-require-review", "requests are not held by default");
}

export function registerOwnerCommands(program: Command, io: CliIO): void {
  const load = () => import("../commands/owner.ts");
  const owner = program
    .command("owner")
    .description("Configure a vault as its owner: transactions sent directly on-chain with the owner key")
    .addHelpText(
      "after",
      examples(
        "relay owner bot add 0x… --max-per-tx 500 --daily-limit 2000 --ai-threshold 250",
        "relay owner bot update reviewed --no-require-review",
        "relay owner destination add 0x… --for-bot default",
        "relay owner protocol approve marketplace",
        "relay owner pause",
      ),
    );
  const sub = (parent: Command, name: string) => withOwnerOptions(withSettingsOptions(parent.command(name)));

  const bot = owner.command("bot").description("Add, update, remove or show a bot");
  limitOptions(sub(bot, "add"))
    .argument("<bot>", "bot address (or a manifest bot name)")
    .description("Add a bot with limits (limits not given are not set)")
    .action(async (address: string, o) => (await load()).botAdd(address, o, io));
  limitOptions(sub(bot, "update"))
    .argument("<bot>", "bot address (or a manifest bot name)")
    .description("Change the given limits of a bot, keeping the others")
    .action(async (address: string, o) => (await load()).botUpdate(address, o, io));
  sub(bot, "remove")
    .argument("<bot>", "bot address (or a manifest bot name)")
    .description("Remove a bot")
    .action(async (address: string, o) => (await load()).botRemove(address, o, io));
  sub(bot, "show")
    .argument("<bot>", "bot address (or a manifest bot name)")
    .description("Show a bot's on-chain configuration")
    .action(async (address: string, o) => (await load()).botShow(address, o, io));

  sub(owner, "limits")
    .option("--daily-limit <usd>", "vault-wide USD per rolling 24 h")
    .option("--limit <usd/window[/count]>", "vault-wide rolling spend window, repeatable", collect)
    .option("--clear-limits", "remove the vault-wide limits")
    .description("Set the vault-wide spending limits (summed over all bots)")
    .action(async (o) => (await load()).vaultLimits(o, io));

  for (const action of ["add", "remove"] as const) {
    const dest = owner.commands.find((c) => c.name() === "destination") ?? owner.command("destination").description("Manage the vault's and bots' destination whitelists");
    sub(dest, action)
      .argument("<to>", "recipient address")
      .option("--for-bot <bot>", "the bot's own whitelist instead of the vault's")
      .description(`${action === "add" ? "Add a recipient to" : "Remove a recipient from"} a whitelist`)
      .action(async (to: string, o) => (await load()).destination(action, to, o, io));
    const black = owner.commands.find((c) => c.name() === "blacklist") ?? owner.command("blacklist").description("Manage the vault's blacklist (always refused)");
    sub(black, action)
      .argument("<address>", "address")
      .description(`${action === "add" ? "Add an address to" : "Remove an address from"} the blacklist`)
      .action(async (address: string, o) => (await load()).blacklist(action, address, o, io));
    const rebalance = owner.commands.find((c) => c.name() === "rebalance-tokens") ?? owner.command("rebalance-tokens").description("Manage the vault's rebalance whitelist");
    sub(rebalance, action)
      .argument("<tokens...>", "token symbols or addresses")
      .description(`${action === "add" ? "Add tokens to" : "Remove tokens from"} the rebalance whitelist`)
      .action(async (tokens: string[], o) => (await load()).rebalanceTokens(action, tokens, o, io));
  }

  const protocol = owner.command("protocol").description("Approve or revoke a contract the vault may call");
  for (const action of ["approve", "revoke"] as const) {
    sub(protocol, action)
      .argument("<address>", "contract address or manifest name (marketplace, lending, nft)")
      .description(`${action === "approve" ? "Approve" : "Revoke"} a protocol`)
      .action(async (address: string, o) => (await load()).protocol(action, address, o, io));
  }

  sub(owner, "cancel")
    .argument("<intentHash>", "the intent's EIP-712 digest (a review's intentHash)")
    .description("Cancel a signed intent on-chain (owner or operator): it can never execute, at any relayer")
    .action(async (intentHash: string, o) => (await load()).cancel(intentHash, o, io));
  sub(owner, "slippage")
    .argument("<percent>", "most a swap may lose against the price feeds, e.g. 1 or 0.5 (default 1)")
    .description("Set the vault's swap slippage tolerance; every swap's output must be worth at least the input less this")
    .action(async (percent: string, o) => (await load()).slippage(percent, o, io));
  sub(owner, "swap-limit")
    .argument("<bot>", "bot address (or a manifest bot name)")
    .argument("<usd/window>", "USD of swaps per rolling window, e.g. 5000/1d (0/1d removes it)")
    .description("Bound a bot's swap volume over a rolling window")
    .action(async (bot: string, limit: string, o) => (await load()).swapLimit(bot, limit, o, io));
  sub(owner, "scanners")
    .argument("[addresses...]", "the AI panel's three scanner addresses (relay agents prints them; a devnet's are dev accounts 17-19)")
    .option("--clear", "register none: every request the vault holds for the AI scan then needs the owner's review")
    .description("Register the AI panel's three keys: 2 of their verdicts execute a request the vault holds for the AI scan")
    .action(async (addresses: string[], o) => (await load()).scanners(addresses, o, io));
  sub(owner, "pause").description("Pause the vault (every request is refused)").action(async (o) => (await load()).pause(true, o, io));
  sub(owner, "unpause").description("Unpause the vault").action(async (o) => (await load()).pause(false, o, io));

  sub(owner, "deposit")
    .requiredOption("--token <token>", "token symbol or address")
    .requiredOption("--amount <amount>", "amount in human units (see --base-units)")
    .option("--base-units", "the amount is in base units")
    .option("--ref <text>", "a reference for the Deposited event (text is hashed; 0x + 64 hex kept)")
    .description("Deposit tokens from the owner's wallet into the vault (anyone may deposit)")
    .action(async (o) => (await load()).deposit(o, io));

  const life = () => import("../commands/owner-lifecycle.ts");
  sub(owner, "withdraw")
    .requiredOption("--token <token>", "token symbol or address, or ETH")
    .requiredOption("--amount <amount>", "amount in human units (see --base-units)")
    .requiredOption("--to <address>", "recipient")
    .option("--base-units", "the amount is in base units")
    .description("Send tokens or ETH out of the vault (owner only)")
    .action(async (o) => (await life()).withdraw(o, io));
  sub(owner, "withdraw-nft")
    .argument("<nft>", "the ERC-721 or ERC-1155 contract")
    .argument("<tokenId>", "the token id")
    .requiredOption("--to <address>", "recipient")
    .option("--amount <n>", "ERC-1155: how many units (without it: an ERC-721)")
    .description("Send an NFT (ERC-721, or --amount of an ERC-1155) out of the vault (owner only)")
    .action(async (nft: string, id: string, o) => (await life()).withdrawNft(nft, id, o, io));

  const operator = owner.command("operator").description("The vault's operator and what it may add");
  sub(operator, "set")
    .argument("<address>", "the operator (may pause, remove bots, blacklist, and add bots within the ceilings)")
    .description("Set the operator")
    .action(async (address: string, o) => (await life()).setOperator(address, o, io));
  sub(operator, "clear").description("Remove the operator").action(async (o) => (await life()).setOperator(undefined, o, io));
  sub(operator, "ceilings")
    .option("--max-bots <n>", "how many bots the operator may add (default 0: none)")
    .option("--max-per-tx <usd>", "each of its bots needs a per-tx cap within this")
    .option("--max-bot-daily <usd>", "each of its bots' spend per day (from its limits) within this")
    .option("--vault-daily <usd>", "all its bots' spend per day together within this")
    .option("--ai-floor <usd>", "each of its bots has an AI trigger at or below this")
    .description("Set what the operator may add (flags not given: no bound)")
    .action(async (o) => (await life()).operatorCeilings(o, io));

  sub(owner, "transfer-ownership")
    .argument("<address>", "the next owner (it must accept)")
    .description("Name the vault's next owner; nothing changes until it runs accept-ownership")
    .action(async (address: string, o) => (await life()).transferOwnership(address, o, io));
  sub(owner, "accept-ownership")
    .description("Take over the vault, with the pending owner's key (--owner-key)")
    .action(async (o) => (await life()).acceptOwnership(o, io));
  sub(owner, "deploy")
    .option("--factory <address>", "the vault factory (default: the devnet manifest's)")
    .description("Deploy a vault owned by the owner key, at the address `relay owner predict` gives")
    .action(async (o) => (await life()).deploy(o, io));
  sub(owner, "predict")
    .option("--factory <address>", "the vault factory (default: the devnet manifest's)")
    .option("--owner <address>", "whose vault (default: the owner key's)")
    .option("--nonce <n>", "which of its vaults, from 0 (default: its next)")
    .description("The address an owner's vault gets, before it is deployed")
    .action(async (o) => (await life()).predict(o, io));
  sub(owner, "state").description("The vault's roles, bots, limits and lists in one read").action(async (o) => (await life()).state(o, io));

  withOwnerOptions(withSettingsOptions(program.command("fund")))
    .requiredOption("--token <token>", "mock token symbol or address")
    .requiredOption("--amount <amount>", "amount in human units (see --base-units)")
    .option("--to <address>", "recipient (default: the vault)")
    .option("--base-units", "the amount is in base units")
    .description("Mint devnet mock tokens to the vault (or --to); the devnet tokens' mint is public")
    .addHelpText("after", examples("relay fund --token USDC --amount 10000", "relay fund --token WETH --amount 2 --to 0x…"))
    .action(async (o) => (await load()).fund(o, io));
}
