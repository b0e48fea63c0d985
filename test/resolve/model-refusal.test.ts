/**
 * Issue 9 item 10: when no layer names a usable model, the refusal says what each layer named and
 * why it could not be used — not only which layers exist.
 */
import { describe, expect, it } from "vitest";
import { resolve } from "../../src/resolve/resolve.ts";
import { catalog, entry, input, loaded, parent } from "./support/build.ts";

describe("model-unresolvable: no layer names a usable model", () => {
	it("names each layer's value and reason", () => {
		const scout = entry("definition", { name: "scout", keys: { model: "other/locked" }, body: "Scout." });
		const role = entry("role", { name: "scout", invalid: { model: 42 } });
		const result = resolve(
			input({
				type: "scout",
				loaded: loaded({ definitions: [scout], roles: [role] }),
				parent: parent({ model: "gone/parent-model" }),
				models: catalog({ noCredentials: ["other/locked"] }),
			}),
		);
		expect(result.refused?.code).toBe("model-unresolvable");
		const message = result.refused?.message ?? "";
		expect(message).toContain("request: names none");
		expect(message).toContain("role: 42 is not a model name (.pi/roles/scout.md:2)");
		expect(message).toContain("persona: names none");
		expect(message).toContain("pin: names none");
		expect(message).toContain('definition: "other/locked" (.pi/agents/scout.md:2) — no-credentials: other/locked has no credentials');
		expect(message).toContain('parent: "gone/parent-model" — unknown: model "gone/parent-model" not found');
	});

	it("says the parent has no model when it has none", () => {
		const result = resolve(input({ parent: parent({ model: null }) }));
		expect(result.refused?.message).toContain("parent: has no model");
	});
});
