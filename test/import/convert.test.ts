/**
 * `convertAgent` without the bin: when several keys set a capability (cadre's own and another
 * tool's), the cadre file keeps what all of them allow (ADR 0072), and each report says so.
 */
import { describe, expect, it } from "vitest";
import { type ConvertContext, convertAgent } from "../../src/import/convert.ts";
import type { ForeignAgent } from "../../src/import/parse-foreign.ts";

const ctx: ConvertContext = { source: "grok", models: null, readReferenced: () => ({ ok: false, why: "no files here" }), rebase: () => null };

function agent(fields: Record<string, unknown>): ForeignAgent {
	const list = Object.entries(fields).map(([key, value], i) => ({ key, value, line: i + 2, column: 1 }));
	return { kind: "definition", format: "markdown", pathName: "worker", entry: null, fields: list, body: null, bodyLine: 1 };
}

const capabilityOf = (fields: Record<string, unknown>) => {
	const converted = convertAgent(agent(fields), ctx);
	return { capability: converted.keys.find(([key]) => key === "capability")?.[1], reports: converted.fields.filter((f) => f.key !== "name").map((f) => `${f.key} ${f.outcome} ${f.written}`) };
};

describe("capabilities from several keys", () => {
	it("keep what all of them allow", () => {
		expect(capabilityOf({ capability: "read-write", capability_mode: "execute" })).toEqual({
			capability: "read-only",
			reports: ["capability approximated capability: read-only", "capability_mode approximated capability: read-only"],
		});
		expect(capabilityOf({ capability: "all", capability_mode: "execute" })).toEqual({
			capability: "execute",
			reports: ["capability approximated capability: execute", "capability_mode mapped capability: execute"],
		});
		expect(capabilityOf({ capability: "read-write", permission_mode: "plan" }).capability).toBe("read-only");
		expect(capabilityOf({ capability: "all", capability_mode: "all" }).capability).toBe("all");
		expect(capabilityOf({ capability: "read-write" })).toEqual({ capability: "read-write", reports: ["capability mapped capability: read-write"] });
	});
});
