/**
 * The refusal codes docs list are the code's one table (src/resolve/refusal-codes.ts), and the
 * model ids docs show are ones pi 1.6 knows (issue 19).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REFUSAL_PRIORITY } from "../../src/resolve/findings.ts";
import { REFUSAL_CODES } from "../../src/resolve/refusal-codes.ts";

const DOCS = join(import.meta.dirname, "..", "..", "docs");
const doc = (name: string) => readFileSync(join(DOCS, name), "utf8");

describe("refusal codes in the docs", () => {
	it("docs/resolution.md's table is the code's table, row for row", () => {
		const section = doc("resolution.md").split("## Refusals")[1]?.split("\n## ")[0] ?? "";
		const rows = [...section.matchAll(/^\| `([a-z-]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]]);
		expect(rows).toEqual(Object.entries(REFUSAL_CODES).map(([code, meaning]) => [code, meaning.when]));
	});

	it("docs/resolution.md names the priority the resolver uses", () => {
		const sentence = /When several apply, the one reported is the first of ([^;]+);/.exec(doc("resolution.md").replace(/\s+/g, " "))?.[1] ?? "";
		expect([...sentence.matchAll(/`([a-z-]+)`/g)].map((m) => m[1])).toEqual([...REFUSAL_PRIORITY]);
	});

	it("docs/cli-explain.md lists every code explain can return", () => {
		const line = doc("cli-explain.md").split("\n").find((l) => l.startsWith("| `refused` |")) ?? "";
		const listed = [...(line.split("∈")[1] ?? "").matchAll(/`([a-z-]+)`/g)].map((m) => m[1]);
		expect(listed).toEqual(Object.entries(REFUSAL_CODES).filter(([, m]) => m.explain).map(([code]) => code));
	});
});

describe("model ids in the docs", () => {
	it("are ones pi's built-in catalog knows, for pi's own providers", async () => {
		const all = await import("@earendil-works/pi-ai/providers/all");
		const providers = new Set<string>(all.getBuiltinProviders());
		const ids = readdirSync(DOCS).filter((f) => f.endsWith(".md")).flatMap((f) => [...doc(f).matchAll(/\b([a-z][a-z-]*)\/([a-z][a-z0-9.-]*\d[a-z0-9.-]*)\b/g)].map((m) => ({ file: f, provider: m[1] as string, id: m[2] as string })));
		const unknown = ids.filter((m) => providers.has(m.provider) && !all.getBuiltinModels(m.provider as never).some((x: { id: string }) => x.id === m.id));
		expect(ids.length).toBeGreaterThan(0);
		expect(unknown.map((m) => `${m.file}: ${m.provider}/${m.id}`)).toEqual([]);
	});
});
