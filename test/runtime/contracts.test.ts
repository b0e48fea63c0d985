/**
 * Contracts kept end to end (issue 13), through real pi sessions with the faux model: a persona's
 * promised file is checked when the run ends; a child that did not write it is steered once (the
 * repair turn) and then passes, or still does not and ends `completed` with `contract.ok: false`
 * naming the output; an `output_schema` makes the child finish through `submit_result`, whose
 * valid value is the result's `structured` and whose invalid calls are answered with the errors.
 * The result text, the service, the events and the run record carry the same contract.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Contract } from "../../src/runtime/contract.ts";
import type { RunResult } from "../../src/runtime/result.ts";
import { loadRun } from "../../src/runtime/run-reader.ts";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, type Script, type Turn, toolResults } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

const WRITER = [
	"---",
	"description: Writes a report file",
	"outputs:",
	"  - name: report",
	"    io_type: file",
	"    path: out/report.md",
	"    required: true",
	"    description: the findings, one per line",
	"---",
	"Write what you find.",
	"",
].join("\n");

const REPAIR = "[cadre] You are not finished";
const write = () => fauxAssistantMessage([fauxToolCall("write", { path: "out/report.md", content: "all good\n" })], { stopReason: "toolUse" });

/** The parent spawns `request` once, then answers "done". */
function parentScript(request: Record<string, unknown>, child: (turn: Turn) => ReturnType<Script>): Script {
	return (turn) => {
		if (turn.agent !== "parent") return child(turn);
		if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "check the code", description: "check", ...request } as never)], { stopReason: "toolUse" });
		return fauxAssistantMessage("done");
	};
}

async function spawnOnce(request: Record<string, unknown>, child: (turn: Turn) => ReturnType<Script>, options: Partial<Parameters<typeof createParent>[0]> = {}) {
	parent = await createParent({ agentFiles: { "personas/writer.md": WRITER }, ...options, script: parentScript(request, child) });
	await parent.session.prompt("go");
	const [result] = toolResults(parent.session, "subagent");
	return { text: result?.text ?? "", details: result?.details as RunResult, childTurns: parent.requests.filter((turn) => turn.agent !== "parent") };
}

describe("a persona's promised file", () => {
	it("a child that writes it passes: contract ok with the file's path, no repair turn", async () => {
		const { details, text, childTurns } = await spawnOnce({ persona: "writer" }, (turn) => (turn.step === 0 ? write() : fauxAssistantMessage("wrote it")));
		expect(details.status).toBe("completed");
		expect(details.contract).toEqual({ ok: true, outputs: [{ name: "report", ok: true, path: join(parent?.cwd ?? "", "out/report.md") }], repair: null });
		expect(childTurns.some((turn) => turn.lastText.includes(REPAIR))).toBe(false);
		expect(text).toContain("Contract: kept — report ok");
		// The child was told where the file goes.
		expect(childTurns[0]?.system).toContain("- report (file, required): the findings, one per line. Write it to out/report.md, relative to your working directory.");
	});

	it("a child that did not write it is steered once, naming the output, its path and description, then passes", async () => {
		const { details, text, childTurns } = await spawnOnce({ persona: "writer" }, (turn) => {
			if (turn.lastText.includes(REPAIR)) return write();
			return fauxAssistantMessage(turn.last?.role === "toolResult" ? "now it is written" : "I looked; all good");
		});
		const repairs = childTurns.filter((turn) => turn.lastText.includes(REPAIR));
		expect(repairs).toHaveLength(1);
		expect(repairs[0]?.lastText).toContain("report (file, required): the findings, one per line — out/report.md does not exist. Write it to out/report.md");
		expect(details.status).toBe("completed");
		expect(details.contract?.ok).toBe(true);
		expect(details.contract?.repair).toEqual({ steered: true, worked: true, skipped: null });
		expect(existsSync(join(parent?.cwd ?? "", "out/report.md"))).toBe(true);
		expect(text).toContain("Repair turn: sent once; it fixed the contract.");
		expect(parent?.service().get(details.id)?.requestedVsUsed.find((row) => row.field === "contract")).toMatchObject({ requested: ["report"], used: ["report"], note: "kept; repaired by a repair turn" });
	});

	it("a child that still does not ends completed with contract.ok false naming the output — in the result, the event, the service and the record", async () => {
		const { details, text, childTurns } = await spawnOnce({ persona: "writer" }, () => fauxAssistantMessage("I would rather not"), { persisted: true });
		expect(childTurns.filter((turn) => turn.lastText.includes(REPAIR))).toHaveLength(1);
		expect(details.status).toBe("completed");
		const broken: Contract = {
			ok: false,
			outputs: [{ name: "report", ok: false, path: join(parent?.cwd ?? "", "out/report.md"), reason: "out/report.md does not exist" }],
			repair: { steered: true, worked: false, skipped: null },
		};
		expect(details.contract).toEqual(broken);
		expect(text).toContain("Contract: NOT kept — report missing: out/report.md does not exist");
		expect(text).toContain("Repair turn: sent once; the contract is still not kept.");
		const completed = parent?.events.find((event) => event.name === "cadre:completed");
		expect(completed?.payload.contract).toEqual(broken);
		expect(parent?.service().get(details.id)?.contract).toEqual(broken);
		const stored = loadRun(join(dirname(parent?.service().get(details.id)?.transcript ?? ""), `${details.id}.run.json`));
		expect(stored.ok && stored.run.contract).toEqual(broken);
	});

	it("settings contracts.repair false: no repair turn, and the result says why", async () => {
		const { details, childTurns } = await spawnOnce({ persona: "writer" }, () => fauxAssistantMessage("nothing written"), { subagentSettings: { contracts: { repair: false } } });
		expect(childTurns.some((turn) => turn.lastText.includes(REPAIR))).toBe(false);
		expect(details.contract).toMatchObject({ ok: false, repair: { steered: false, worked: false, skipped: "settings contracts.repair is false" } });
	});

	it("a text output is a named section of the final answer, and a child without turns left gets no repair turn", async () => {
		const persona = "---\ndescription: Reports\noutputs:\n  - name: summary\n    io_type: text\n    required: true\n---\nSummarise.\n";
		const { details, childTurns } = await spawnOnce({ persona: "reporter", max_turns: 2 }, (turn) =>
			turn.step === 0 ? fauxAssistantMessage([fauxToolCall("ls", { path: "." })], { stopReason: "toolUse" }) : fauxAssistantMessage("All fine, no summary tag."),
			{ agentFiles: { "personas/reporter.md": persona } },
		);
		expect(childTurns[0]?.system).toContain('Put it in your final answer as <output name="summary">…</output>.');
		expect(details.contract).toMatchObject({ ok: false, outputs: [{ name: "summary", ok: false, reason: 'the final answer has no <output name="summary"> section' }], repair: { steered: false, skipped: "no turns left (max_turns 2)" } });
	});
});

const SCHEMA = { type: "object", properties: { score: { type: "integer", minimum: 0 }, verdict: { type: "string" } }, required: ["score", "verdict"], additionalProperties: false };

describe("output_schema and submit_result", () => {
	it("a valid submission ends the run and is the result's structured value", async () => {
		const { details, text, childTurns } = await spawnOnce({ output_schema: SCHEMA }, () =>
			fauxAssistantMessage([fauxToolCall("submit_result", { score: 3, verdict: "fine" })], { stopReason: "toolUse" }),
		);
		expect(details.status).toBe("completed");
		expect(details.structured).toEqual({ score: 3, verdict: "fine" });
		expect(details.contract).toEqual({ ok: true, outputs: [{ name: "structured", ok: true }], repair: null });
		// A valid call ends the run: no model request after it.
		expect(childTurns).toHaveLength(1);
		expect(childTurns[0]?.system).toContain("Call submit_result with it");
		expect(text).toContain('Structured result (submit_result): {"score":3,"verdict":"fine"}');
	});

	it("an invalid submission is answered with the validation errors; the fixed one is kept", async () => {
		const { details, childTurns } = await spawnOnce({ output_schema: SCHEMA }, (turn) =>
			turn.step === 0
				? fauxAssistantMessage([fauxToolCall("submit_result", { score: -2, verdict: "bad", extra: true })], { stopReason: "toolUse" })
				: fauxAssistantMessage([fauxToolCall("submit_result", { score: 2, verdict: "fixed" })], { stopReason: "toolUse" }),
		);
		const answer = childTurns[1]?.lastText ?? "";
		expect(childTurns[1]?.last?.role).toBe("toolResult");
		// ajv's errors, each with where it is.
		expect(answer).toContain("The result is not valid; fix these and call submit_result again:");
		expect(answer).toContain("- /score: must be >= 0");
		expect(answer).toContain("- (the result): must NOT have additional properties (extra)");
		expect(details.structured).toEqual({ score: 2, verdict: "fixed" });
		expect(details.contract?.ok).toBe(true);
	});

	it("a child that never submits is steered once toward submit_result; the definition's schema file applies when the request names none", async () => {
		const definition = "---\ndescription: Scores\noutput_schema_file: score.schema.json\n---\nScore it.\n";
		const { details, childTurns } = await spawnOnce({ subagent_type: "scorer" }, (turn) =>
			turn.lastText.includes(REPAIR) ? fauxAssistantMessage([fauxToolCall("submit_result", { score: 1, verdict: "late" })], { stopReason: "toolUse" }) : fauxAssistantMessage("a score of one"),
			{ agentFiles: { "agents/scorer.md": definition, "agents/score.schema.json": JSON.stringify(SCHEMA) } },
		);
		const repair = childTurns.find((turn) => turn.lastText.includes(REPAIR));
		expect(repair?.lastText).toContain("structured (result, required) — submit_result was never called");
		expect(details.structured).toEqual({ score: 1, verdict: "late" });
		expect(details.contract).toMatchObject({ ok: true, repair: { steered: true, worked: true } });
		expect(JSON.parse(readFileSync(join(parent?.agentDir ?? "", "agents/score.schema.json"), "utf8"))).toEqual(SCHEMA);
	});

	it("a schema that is not one refuses the spawn, naming what is wrong", async () => {
		const { text } = await spawnOnce({ output_schema: { type: "objekt" } }, () => fauxAssistantMessage("never runs"));
		expect(text).toContain("Spawn refused (output-schema-invalid): request output_schema is not a usable JSON Schema");
	});
});
