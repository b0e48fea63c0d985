/**
 * Values the explain table shows come from any file: smol-toml builds tables without a prototype,
 * so `capability = [{a = 1}]` in a TOML role made `explain` throw "Cannot convert object to
 * primitive value" (found by test/fuzz/resolver.test.ts). Every value renders.
 */
import { describe, expect, it } from "vitest";
import { explain, formatValue, renderExplain } from "../../src/resolve/explain.ts";
import { spawnReader } from "../../src/resolve/spawn-reader.ts";
import { layout } from "../files/fixture.ts";
import { catalog, parent } from "./support/build.ts";

describe("explain renders any value a file can hold", () => {
	it("formats lists holding prototype-less objects and lists", () => {
		const bare = Object.assign(Object.create(null) as object, { a: 1 });
		expect(formatValue([bare, [1, 2], "x"])).toBe('{"a":1}, 1, 2, x');
		expect(formatValue([[bare]])).toBe('{"a":1}');
	});

	it("explains a type whose TOML role has a table inside a list", () => {
		const l = layout({ "project/.pi/roles/explore.toml": "capability = [{a = 1}]\nmodel = [[1], {b = 2}]\n" });
		const loaded = l.load();
		const out = explain({ request: {}, type: "explore", loaded, parent: parent({ cwd: l.project }), models: catalog(), reader: spawnReader });
		expect(renderExplain(out)).toContain('{"a":1}');
	});
});
