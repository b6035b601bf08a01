// The generated pages of docs/reference/, by path from the repository's root.
import { cliReference } from "./cli.ts";
import { clientReference } from "./client.ts";
import { httpApiReference } from "./http-api.ts";

export async function generatedReferences(): Promise<Map<string, string>> {
  return new Map([
    ["docs/reference/http-api.md", httpApiReference()],
    ["docs/reference/cli.md", await cliReference()],
    ["docs/reference/client.md", clientReference()],
  ]);
}
