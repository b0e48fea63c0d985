/** `--budget tokens=…,cost=…,time=…` as a budget; a bad part is a usage error that says what is wrong. */
import { describe, expect, it } from "vitest";
import { parseBudgetFlag } from "../../src/hosts/cli/budget-flag.ts";
import { UsageError } from "../../src/hosts/cli/io.ts";

describe("--budget", () => {
	it("reads any of tokens, cost and time, comma-separated", () => {
		expect(parseBudgetFlag("tokens=5000,cost=0.05, time=600")).toEqual({ tokens: 5000, cost: 0.05, time: 600 });
		expect(parseBudgetFlag("cost=1")).toEqual({ cost: 1 });
	});

	it.each([
		["", /names no limit/],
		["tokens=1.5", /--budget tokens=1\.5: tokens expects a whole number of tokens greater than 0/],
		["cost=-1", /cost expects an amount of US dollars greater than 0/],
		["cost=abc", /cost expects an amount of US dollars greater than 0: "abc"/],
		["tokens", /tokens needs a value \(tokens=…\)/],
		["money=5", /money is not a budget dimension \(tokens, cost, time\)/],
		["cost=1,cost=2", /names cost twice/],
	])("refuses %j", (text, message) => {
		expect(() => parseBudgetFlag(text)).toThrow(UsageError);
		expect(() => parseBudgetFlag(text)).toThrow(message);
	});
});
