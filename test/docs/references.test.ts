// The committed references under docs/reference/ are what `npm run docs` generates from the code (the
// OpenAPI document, the CLI's help, the client's sources): a route, flag or export changed without
// regenerating them fails here, naming the page.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generatedReferences } from "../../scripts/docs/references.ts";
import { projectRoot } from "../../src/paths.ts";

const generated = await generatedReferences();

describe("docs/reference/", () => {
  it("holds the three generated pages", () => {
    expect([...generated.keys()]).toEqual(["docs/reference/http-api.md", "docs/reference/cli.md", "docs/reference/client.md"]);
  });

  for (const [file, text] of generated) {
    it(`${file} is what npm run docs writes (run it after changing the code it comes from)`, () => {
      expect(readFileSync(path.join(projectRoot, file), "utf8"), `${file} is out of date: run npm run docs`).toBe(text);
    });
  }

  it("lists every route of the API, every command of the CLI and every export of the client", async () => {
    const { documentedRoutes } = await import("../../src/server/openapi.ts");
    const http = generated.get("docs/reference/http-api.md")!;
    for (const route of documentedRoutes) expect(http).toContain(`### ${route.method} \`${route.path}\``);
    const cli = generated.get("docs/reference/cli.md")!;
    for (const command of ["relay serve", "relay pay", "relay owner bot add", "relay review reject", "relay time advance", "relay completion"]) {
      expect(cli).toContain(`\n## ${command}\n`);
    }
    const client = generated.get("docs/reference/client.md")!;
    const exports = Object.keys(await import("../../packages/client/src/index.ts"));
    expect(exports.length).toBeGreaterThan(30);
    for (const name of exports) expect(client).toMatch(new RegExp(`### \`(new )?${name}[\`.]`));
  });
});
