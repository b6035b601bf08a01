// Registers the bot author's commands: pay, execute, swap, sign, status, fetch (an x402 paywall), and mcp (the same as tools for an agent).
import { Command, Option } from "commander";
import type { CliIO } from "../io.ts";
import { parsePort } from "../options.ts";
import { examples, withBotOptions, withSettingsOptions, withWaitOptions } from "./common.ts";

const collect = (value: string, previous: string[] = []) => [...previous, value];

function intentOptions(command: Command): Command {
  return command
    .option("--memo <text>", "note for the owner's review (not signed, not on-chain)")
    .option("--metadata <key=value>", "off-chain metadata, repeatable (e.g. scenario=ai-approve on a devnet)", collect)
    .option("--scenario <value>", "devnet only: force the outcome, e.g. ai-no-consensus, review-approve:5 (= --metadata scenario=<value>)")
    .option("--ref <text>", "on-chain reference: 0x + 64 hex digits, or any text (its keccak256); random by default")
    .option("--deadline <seconds>", "intent lifetime from now in seconds (default 300)")
    .option("--idempotency-key <uuid>", "resend an earlier request with the same key (default: a new UUID)")
    .option("--base-units", "amounts are base units (integers), not human units");
}

const paymentOptions = (c: Command) =>
  intentOptions(
    c
      .requiredOption("--to <address>", "recipient address (or a manifest name such as `owner`)")
      .requiredOption("--amount <amount>", "amount in human units, e.g. 5 or 0.25 (see --base-units)")
      .requiredOption("--token <token>", "token symbol (USDC, WETH, …) or address")
      .option("--invoice-id <id>", "the merchant's invoice id, shown to the owner (not signed, at most 128 characters)")
      .option("--order-id <id>", "the merchant's order id, shown to the owner (not signed, at most 128 characters)")
      .option("--recipient-label <text>", "who the recipient is, shown to the owner (not signed, at most 200 characters)")
      .option("--resource-url <url>", "http(s) URL of what is paid for, shown to the owner (not signed)")
      .option("--x402-funding <json>", "the x402 payment this funds: true, or the requirement as a JSON object (its payTo checked as a payee), shown to the owner (not signed)")
      .option("--swap-from <token>", "swap-and-pay: pay by swapping this token into --token in the same transaction (needs --swap-max)")
      .option("--swap-max <amount>", "swap-and-pay: most of --swap-from to spend (human units; base units with --base-units)"),
  );

const executeOptions = (c: Command) =>
  intentOptions(
    c
      .requiredOption("--protocol <address>", "contract to call (or a manifest name: marketplace, lending, nft)")
      .requiredOption("--calldata <hex>", "the call's ABI-encoded data, 0x…")
      .option("--token <token>", "token the call may spend, repeatable (pairs with --amount)", collect)
      .option("--amount <amount>", "amount of the matching --token, repeatable", collect)
      .option("--value <eth>", "native ETH sent with the call (human units; wei with --base-units)")
      .option("--protocol-name <name>", "label shown to the owner"),
  );

const swapOptions = (c: Command) =>
  intentOptions(
    c
      .requiredOption("--from-token <token>", "token the vault gives up")
      .requiredOption("--max-from-amount <amount>", "most of --from-token to spend")
      .requiredOption("--to-token <token>", "token the vault receives (must be on its rebalance whitelist)")
      .requiredOption("--min-to-amount <amount>", "least of --to-token to accept"),
  );

function botCommand(parent: Command, name: string): Command {
  return withBotOptions(withSettingsOptions(parent.command(name)));
}

export function registerBotCommands(program: Command, io: CliIO): void {
  const load = () => import("../commands/bot.ts");

  withWaitOptions(paymentOptions(botCommand(program, "pay")))
    .description("Sign a payment intent as the bot and send it to the relayer")
    .addHelpText(
      "after",
      examples(
        "relay pay --to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --amount 5 --token USDC",
        "relay pay --to 0x… --amount 250000 --base-units --token 0x036CbD53842c5426634e7929541eC2318f3dCF7e --memo 'invoice 42' --wait",
        "relay pay --bot reviewed --to owner --amount 1 --token DAI --json",
      ) + "\nExit codes: 0 approved, 1 failure, 2 usage, 3 refused or rejected, 4 pending review, 5 relayer unreachable.\n",
    )
    .action(async (options) => (await load()).send("payment", options, io));

  withWaitOptions(executeOptions(botCommand(program, "execute")))
    .description("Sign a protocol call intent as the bot and send it to the relayer")
    .addHelpText(
      "after",
      examples(
        "relay execute --protocol marketplace --calldata 0x… --token USDC --amount 100 --protocol-name 'NFT marketplace'",
        "relay execute --protocol 0x… --calldata 0x… --value 0.01 --wait",
      ),
    )
    .action(async (options) => (await load()).send("execute", options, io));

  withWaitOptions(swapOptions(botCommand(program, "swap")))
    .description("Sign an in-vault swap intent as the bot and send it to the relayer")
    .addHelpText("after", examples("relay swap --from-token USDC --max-from-amount 3000 --to-token WETH --min-to-amount 0.9"))
    .action(async (options) => (await load()).send("swap", options, io));

  const sign = program
    .command("sign")
    .description("Print a signed request body (JSON) without sending it, e.g. to POST it yourself")
    .addHelpText("after", examples("relay sign payment --to 0x… --amount 5 --token USDC > body.json", "curl -d @body.json -H 'content-type: application/json' $RELAY_URL/v1/payments"));
  paymentOptions(botCommand(sign, "payment"))
    .description("Sign a payment intent and print the body of POST /v1/payments")
    .action(async (options) => (await load()).sign("payment", options, io));
  executeOptions(botCommand(sign, "execute"))
    .description("Sign a protocol call intent and print the body of POST /v1/execute")
    .action(async (options) => (await load()).sign("execute", options, io));
  swapOptions(botCommand(sign, "swap"))
    .description("Sign a swap intent and print the body of POST /v1/swap")
    .action(async (options) => (await load()).sign("swap", options, io));

  withWaitOptions(withSettingsOptions(program.command("status")))
    .argument("[requestId]", "request id (default: the most recent request sent from this state directory)")
    .addOption(new Option("--kind <kind>", "the request's kind, when this CLI did not send it").choices(["payment", "execute", "swap", "x402"]))
    .description("Show a request's status; with --wait, follow it until it resolves")
    .addHelpText("after", examples("relay status", "relay status 0b6f… --wait --timeout 120", "relay status --json"))
    .action(async (requestId: string | undefined, options) => (await load()).status(requestId, options, io));

  withWaitOptions(botCommand(program, "fetch"))
    .argument("<url>", "the http(s) URL to get")
    .option("--max <amount>", "the most to pay, in the asset's units (e.g. 0.05 for USDC), inclusive; a higher price is refused (exit 3) and nothing moves")
    .addOption(new Option("--mode <mode>", "vault: the vault pays the merchant; funding: the vault funds the bot, which pays").choices(["vault", "funding"]).default("vault"))
    .option("--memo <text>", "note for the owner's review (default: what the paywall says it sells)")
    .description("Get a URL, paying an x402 paywall (HTTP 402) from the vault; the body goes to stdout")
    .addHelpText(
      "after",
      examples(
        "relay fetch http://127.0.0.1:4021/demo/report --max 0.05",
        "relay fetch https://api.example/data --mode funding --json",
        "relay fetch https://api.example/data --max 1 --wait",
      ) + "\nExit codes: 0 done (also when no payment was asked), 1 failure, 2 usage, 3 refused (price above --max, or the payment rejected), 4 held for review, 5 relayer unreachable.\n",
    )
    .action(async (url: string, options) => (await import("../commands/fetch.ts")).fetchPaid(url, options, io));

  withBotOptions(withSettingsOptions(program.command("mcp"), { json: false }))
    .addOption(new Option("--http <port>", "serve streamable HTTP at http://127.0.0.1:<port>/mcp (0 = a free port) instead of stdio").argParser(parsePort("--http")))
    .description("Run a Model Context Protocol server acting for the bot: tools to pay, execute, swap, follow requests and read the vault (stdio by default)")
    .addHelpText(
      "after",
      examples("relay mcp --state-dir .relay", "relay mcp --bot reviewed --http 8790", "RELAY_BOT_KEY=0x… RELAY_VAULT=0x… RELAY_URL=https://relayer.example relay mcp") +
        "\nOn stdio, stdout carries the protocol only; messages go to stderr. The owner's key is never loaded.\n",
    )
    .action(async (options) => (await import("../commands/mcp.ts")).mcp(options, io));
}
