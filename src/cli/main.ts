// The `relay` command line: a testable `main(argv, io)`. Command actions are imported only when
// their command runs, so that light commands never load Hardhat, fastify or Ink.
import { readFileSync } from "node:fs";
import path from "node:path";
import { Argument, Command, CommanderError, Option } from "commander";
import { projectRoot } from "../paths.ts";
import { CliError, EXIT, type CliIO } from "./io.ts";
import { cliErrorFromClient } from "./output.ts";
import { visibleStream } from "./safe-text.ts";
import { collectChainIds, collectProxies, parseDatabaseUrl, parseDomainName, parsePort, parsePositiveInt, parsePrivateKey, parseUrl } from "./options.ts";
import { stateDirOption } from "./state-dir.ts";
import { registerBotCommands } from "./register/bot.ts";
import { registerVaultCommands } from "./register/vault.ts";
import { registerOwnerCommands } from "./register/owner.ts";
import { registerKeyCommands } from "./register/keys.ts";
import { registerTermsCommands } from "./register/terms.ts";
import { registerTimeCommands } from "./register/time.ts";
import { registerReview } from "./review/register.ts";

export async function main(argv: readonly string[], given: CliIO): Promise<number> {
  // Every command writes through this boundary: control characters a command forgot to escape in a
  // value it prints are made visible here (safe-text.ts), on stdout and stderr alike.
  const io: CliIO = { ...given, stdout: visibleStream(given.stdout), stderr: visibleStream(given.stderr) };
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return EXIT.OK;
  } catch (error) {
    return reportFailure(error, io);
  }
}

function buildProgram(io: CliIO): Command {
  const program = new Command("relay")
    .description("Relayer, local chain and CLI for bots that pay from on-chain vaults")
    .version(packageVersion(), "-V, --version", "print relay's version")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Commander's own usage errors (unknown option or command, missing option, bad argument, too
      // many arguments) become the CLI's one line, like every other failure; reportFailure exits 2.
      outputError: (text) => io.stderr.write(`relay: ${usageLine(text)}\n`),
    });

  const devnetOptions = (command: Command) =>
    command
      .addOption(new Option("--chain-id <id>", "chain id of the devnet (default 84532); repeat it for several chains, each on its own RPC port").argParser(collectChainIds).env("RELAY_CHAIN_ID"))
      .addOption(new Option("--domain-name <name>", "EIP-712 domain name of the vaults").default("ServiceVault").argParser(parseDomainName))
      .addOption(new Option("--rpc-port <port>", "JSON-RPC port on 127.0.0.1 (0 = a free port); further chains take the next ports").default(8545).argParser(parsePort("--rpc-port")))
      .addOption(new Option("--fork <url>", "fork a live network instead of starting empty").argParser(parseUrl("--fork")))
      .addOption(stateDirOption("where the manifest and ledger live"))
      .option("--manifest <file>", "also write a copy of the manifest here")
      .option("--json", "print the manifest as JSON on stdout when ready (one line per chain)");

  devnetOptions(
    program
      .command("devnet")
      .description("Run a local chain with the vault contracts deployed and seeded (JSON-RPC only)")
      .addHelpText("after", "\nExamples:\n  relay devnet\n  relay devnet --chain-id 42161 --rpc-port 0 --manifest ./devnet.json\n  relay devnet --chain-id 84532 --chain-id 421614   (two chains: RPC on 8545 and 8546)\n"),
  ).action(async (options) => (await import("./commands/devnet.ts")).devnet(options, io));

  devnetOptions(
    program
      .command("serve")
      .description("Run the relayer; without --rpc-url it first starts a devnet for it")
      .addOption(new Option("--port <port>", "relayer HTTP port on 127.0.0.1 (0 = a free port)").default(8787).argParser(parsePort("--port")))
      .addOption(new Option("--rpc-url <url>", "serve against this one chain, with the deployment in the state directory's manifest (several chains: --config)").argParser(parseUrl("--rpc-url")).env("RELAY_RPC_URL"))
      .option("--config <file>", "a JSON relayer configuration: several chains, relayer keys, limits")
      .addOption(new Option("--public-url <url>", "the address clients reach this relayer at, when it is behind a proxy (the owners' sign-in messages name it; default: its own http://127.0.0.1:<port>)").argParser(parseUrl("--public-url")).env("RELAY_PUBLIC_URL"))
      .addOption(new Option("--trust-proxy <address>", "a reverse proxy in front of the relayer (IP or CIDR; repeat or comma-separate): requests from it are charged to the client its X-Forwarded-For names").argParser(collectProxies).env("RELAY_TRUST_PROXY"))
      .addOption(new Option("--database-url <url>", "keep the ledger in PostgreSQL (postgres://…), shared by every instance started with it (default: SQLite in the state directory)").argParser(parseDatabaseUrl("--database-url")).env("RELAY_DATABASE_URL"))
      .addOption(new Option("--lease-ttl-ms <ms>", "with --database-url: how long a relayer key's lease and this instance's heartbeat last unless renewed (default 10000): how soon another instance takes over a dead one's keys and requests").argParser(parsePositiveInt("--lease-ttl-ms")).env("RELAY_LEASE_TTL_MS"))
      .addOption(new Option("--ai-endpoint <url>", "an OpenAI-compatible chat endpoint for the verification agents (default: built-in rules)").argParser(parseUrl("--ai-endpoint")))
      .option("--ai-model <name>", "model name for --ai-endpoint")
      .addOption(new Option("--ai-timeout-ms <ms>", "how long the verification agents may take").argParser(parsePositiveInt("--ai-timeout-ms")))
      .addOption(new Option("--review-window <seconds>", "how long an owner has to decide a held request (default 86400)").argParser(parsePositiveInt("--review-window")))
      .addOption(new Option("--max-deadline <seconds>", "farthest ahead a bot's intent deadline may be (default 86400)").argParser(parsePositiveInt("--max-deadline")))
      .addOption(new Option("--request-timeout-ms <ms>", "how long a client may take to send a whole request before a 408 (default 10000)").argParser(parsePositiveInt("--request-timeout-ms")))
      .option("--terms-version <version>", "require vault owners to accept this version of the relayer's terms (POST /v1/tos/accept) before their vaults' intents run")
      .addOption(new Option("--terms-url <url>", "where those terms are published (with --terms-version)").argParser(parseUrl("--terms-url")))
      .addOption(new Option("--metrics-token <token>", "the bearer token GET /metrics wants for its detailed series (16 to 256 characters); without it /metrics shows only relay_up and the start time. Prefer the environment variable: a flag is visible to other users in the process list").env("RELAY_METRICS_TOKEN"))
      .option("--allow-dev-keys", "start even when a relayer key is one of the public development keys and the chain is not a development node")
      .addOption(new Option("--agents-url <url>", "ask a separate panel (`relay agents`) for the verdicts a vault needs to execute a request it holds for the AI scan; this host then holds no scanner key").argParser(parseUrl("--agents-url")).env("RELAY_AGENTS_URL"))
      .addHelpText("after", "\nExamples:\n  relay serve\n  relay serve --port 0 --rpc-port 0 --state-dir /tmp/relay\n  relay serve --chain-id 84532 --chain-id 421614   (two devnet chains, one relayer)\n  relay serve --rpc-url http://127.0.0.1:8545 --state-dir .relay\n"),
  ).action(async (options) => (await import("./commands/serve.ts")).serve(options, io));

  program
    .command("agents")
    .description("Run the AI verification agents as their own process: they check each request against the chain, judge it and sign verdicts with their own keys (HTTP on 127.0.0.1)")
    .addOption(new Option("--rpc-url <url>", "the chain's JSON-RPC URL").argParser(parseUrl("--rpc-url")).env("RELAY_RPC_URL").makeOptionMandatory())
    .addOption(new Option("--port <port>", "HTTP port on 127.0.0.1 (0 = a free port)").default(8788).argParser(parsePort("--port")))
    .addOption(stateDirOption("where the agents' keys live, in its agents/ directory"))
    .addOption(new Option("--ai-endpoint <url>", "an OpenAI-compatible chat endpoint for the agents (default: built-in rules)").argParser(parseUrl("--ai-endpoint")))
    .option("--ai-model <name>", "model name for --ai-endpoint")
    .addOption(new Option("--ai-timeout-ms <ms>", "how long the agents may take").argParser(parsePositiveInt("--ai-timeout-ms")))
    .option("--json", "print {url, chainId, scanners} as JSON on stdout when ready")
    .addHelpText("after", "\nExample:\n  relay agents --rpc-url http://127.0.0.1:8545 --state-dir /srv/relay-agents --port 8788\n  relay serve --agents-url http://127.0.0.1:8788\n")
    .action(async (options) => (await import("./commands/agents.ts")).agents(options, io));

  program
    .command("deploy")
    .description("Deploy the contract suite onto an existing chain and write its manifest")
    .addOption(new Option("--rpc-url <url>", "the chain's JSON-RPC URL").argParser(parseUrl("--rpc-url")).env("RELAY_RPC_URL").makeOptionMandatory())
    .addOption(new Option("--key <hex>", "deployer private key (pays for the deployment)").argParser(parsePrivateKey("--key")).makeOptionMandatory())
    .addOption(new Option("--owner-key <hex>", "vault owner key (default: --key)").argParser(parsePrivateKey("--owner-key")))
    .addOption(new Option("--relayer-key <hex>", "relayer key (default: --key)").argParser(parsePrivateKey("--relayer-key")))
    .addOption(new Option("--operator-key <hex>", "vault operator key (default: a new key)").argParser(parsePrivateKey("--operator-key")))
    .addOption(new Option("--domain-name <name>", "EIP-712 domain name of the vaults").default("ServiceVault").argParser(parseDomainName))
    .addOption(stateDirOption("where the manifest is written"))
    .option("--manifest <file>", "also write a copy of the manifest here")
    .option("--json", "print the manifest as JSON on stdout")
    .option("--allow-shared-keys", "on a chain that is not a development node, allow one key for two of --key, --owner-key, --relayer-key")
    .addHelpText("after", "\nExample:\n  relay deploy --rpc-url http://127.0.0.1:8545 --key 0x…\n")
    .action(async (options) => (await import("./commands/deploy.ts")).deploy(options, io));

  registerBotCommands(program, io);
  registerVaultCommands(program, io);
  registerOwnerCommands(program, io);
  registerKeyCommands(program, io);
  registerTermsCommands(program, io);
  registerTimeCommands(program, io);
  registerReview(program, io);

  program
    .command("completion")
    .description("Print a shell completion script for relay's commands and options")
    .addArgument(new Argument("<shell>", "the shell").choices(["bash", "zsh"]))
    .addHelpText("after", "\nExamples:\n  source <(relay completion bash)        (in ~/.bashrc)\n  source <(relay completion zsh)         (in ~/.zshrc)\n")
    .action(async (shell: "bash" | "zsh") => {
      const { bashCompletion, zshCompletion } = await import("./completion.ts");
      io.stdout.write(shell === "bash" ? bashCompletion(program) : zshCompletion(program));
    });

  return program;
}

/** Commander's message as one line: without its "error: " prefix, a suggestion folded in. */
function usageLine(text: string): string {
  const [first = "", ...rest] = text.trim().replace(/^error: /, "").split("\n");
  const hint = rest.map((line) => line.trim()).filter((line) => line !== "").join(" ").replace(/^\((.*)\)$/, "$1");
  return hint === "" ? first : `${first} (${hint.charAt(0).toLowerCase()}${hint.slice(1)})`;
}

/** The version in package.json. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { version: string }).version;
}

function reportFailure(error: unknown, io: CliIO): number {
  if (error instanceof CommanderError) {
    // --help and --version end here with code 0; usage errors were printed as one line by outputError.
    return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  }
  if (error instanceof CliError) {
    if (error.message !== "") io.stderr.write(`relay: ${error.message}\n`);
    return error.exitCode;
  }
  const fromClient = cliErrorFromClient(error);
  if (fromClient !== undefined) return reportFailure(fromClient, io);
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  io.stderr.write(`relay: ${message}\n`);
  if (io.env.RELAY_DEBUG) io.stderr.write(`${(error as Error)?.stack ?? ""}\n`);
  return EXIT.FAILURE;
}
