/**
 * Run lifecycle through a real pi parent: the parent's abort reaches a foreground child, a user
 * stop wins the race with a finishing run, the parent session's end stops background children,
 * `max_turns` warns two turns ahead and ends the run, resume keeps the stored model and refuses a
 * type change, a missing persona refuses the spawn.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, fullResult, toolResults, type Turn, until } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

const spawn = (args: Record<string, unknown>) => fauxAssistantMessage([fauxToolCall("subagent", args as never)], { stopReason: "toolUse" });
const terminal = (p: Parent) => p.events.filter((e) => e.name === "cadre:completed" || e.name === "cadre:failed");

describe("run lifecycle", () => {
	it("the parent's abort aborts a foreground child", async () => {
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 20" })], { stopReason: "toolUse" });
					return fauxAssistantMessage("woke up");
				}
				if (turn.step === 0) return spawn({ prompt: "sleep", description: "sleep a while" });
				return fauxAssistantMessage("parent after abort");
			},
		});
		const running = parent.session.prompt("go");
		await until(() => parent?.requests.some((t) => t.agent === "general-purpose") ?? false, "the child's first request");
		await new Promise((resolve) => setTimeout(resolve, 100));
		await parent.session.abort();
		await running.catch(() => undefined);
		await until(() => terminal(parent as Parent).length === 1, "the child's end");
		const [end] = terminal(parent);
		expect(end?.name).toBe("cadre:failed");
		expect(end?.payload.status).toBe("aborted");
	});

	it("a user stop wins the race with a run that is finishing", async () => {
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "explore") {
					// The stop arrives while the child produces its final answer.
					const id = String(parent?.events.find((e) => e.name === "cadre:started")?.payload.id);
					void parent?.service().stop(id);
					return fauxAssistantMessage("final answer");
				}
				if (turn.step === 0) return spawn({ prompt: "x", description: "race me", subagent_type: "explore", run_in_background: true });
				return fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		await until(() => terminal(parent as Parent).length > 0, "the end of the run");
		await new Promise((resolve) => setTimeout(resolve, 50));
		const ends = terminal(parent);
		expect(ends).toHaveLength(1);
		expect(ends[0]?.name).toBe("cadre:failed");
		expect(ends[0]?.payload.status).toBe("stopped");
		expect(parent.service().list()[0]?.status).toBe("stopped");
	});

	it("the parent session's end stops running and queued children, recorded as stopped", async () => {
		parent = await createParent({
			subagentSettings: { maxConcurrent: 1 },
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 20" })], { stopReason: "toolUse" });
					return fauxAssistantMessage("woke up");
				}
				if (turn.step === 0)
					return fauxAssistantMessage(
						[
							fauxToolCall("subagent", { prompt: "a", description: "running one", run_in_background: true }),
							fauxToolCall("subagent", { prompt: "b", description: "queued one", run_in_background: true }),
						],
						{ stopReason: "toolUse" },
					);
				return fauxAssistantMessage("spawned two");
			},
		});
		await parent.session.prompt("go");
		await until(() => parent?.requests.some((t) => t.agent === "general-purpose") ?? false, "the first child");
		await parent.shutdown();
		const states = parent.service().list().map((r) => r.status);
		expect(states).toEqual(["stopped", "stopped"]);
		expect(terminal(parent).map((e) => e.payload.status)).toEqual(["stopped", "stopped"]);
	});

	it("max_turns warns the child two turns ahead and ends the run at the ceiling", async () => {
		const childTurns: Turn[] = [];
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					childTurns.push(turn);
					if (childTurns.length > 8) throw new Error("the turn ceiling did not hold");
					return fauxAssistantMessage([fauxToolCall("ls", { path: "." })], { stopReason: "toolUse" });
				}
				if (turn.step === 0) return spawn({ prompt: "loop forever", description: "loop", max_turns: 4 });
				return fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		const details = result?.details as { turns: number; limitReached: boolean; status: string };
		expect(details.limitReached).toBe(true);
		expect(details.turns).toBe(4);
		expect(childTurns).toHaveLength(4);
		const warnedAt = childTurns.findIndex((t) => t.messages.some((m) => JSON.stringify(m).includes("turns left")));
		expect(warnedAt).toBe(2);
	});

	it("a failed answer that pi retries does not count toward max_turns", async () => {
		const cwd = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "retry-"));
		mkdirSync(join(cwd, ".pi"), { recursive: true });
		writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ retry: { enabled: true, baseDelayMs: 1, maxRetries: 2 } }));
		let childRequests = 0;
		parent = await createParent({
			cwd,
			projectTrusted: true,
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					childRequests++;
					if (childRequests === 1) return fauxAssistantMessage("", { stopReason: "error", errorMessage: "overloaded_error: the server is overloaded" });
					if (childRequests === 2) return fauxAssistantMessage([fauxToolCall("ls", { path: "." })], { stopReason: "toolUse" });
					return fauxAssistantMessage(`final: ${turn.lastText.includes("turn limit") ? "blocked" : "listed"}`);
				}
				if (turn.step === 0) return spawn({ prompt: "list once", description: "retry", max_turns: 2 });
				return fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		const details = result?.details as { status: string; turns: number; limitReached: boolean; toolUses: number };
		expect(childRequests).toBe(3);
		expect(details).toMatchObject({ status: "completed", turns: 2, toolUses: 1 });
		expect(fullResult(parent, result)?.limitReached).toBe(false);
		expect(result?.text).toContain("final: listed");
	});

	it("max_turns 2 warns the child before its first request (two turns before the ceiling is the start)", async () => {
		const childTurns: Turn[] = [];
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					childTurns.push(turn);
					if (childTurns.length > 4) throw new Error("the turn ceiling did not hold");
					return fauxAssistantMessage([fauxToolCall("ls", { path: "." })], { stopReason: "toolUse" });
				}
				if (turn.step === 0) return spawn({ prompt: "loop forever", description: "loop", max_turns: 2 });
				return fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		expect((result?.details as { limitReached: boolean }).limitReached).toBe(true);
		expect(childTurns).toHaveLength(2);
		expect(JSON.stringify(childTurns[0]?.messages)).toContain("2 turns left");
	});

	it("refuses a second resume of a run while the first resume still runs (one transcript, one writer)", async () => {
		let id = "";
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "general-purpose") return fauxAssistantMessage(turn.lastText.includes("more") ? "more done" : "first done");
				if (turn.last?.role === "toolResult") return fauxAssistantMessage("ok");
				if (turn.lastText === "first") return spawn({ prompt: "do it", description: "first" });
				if (turn.lastText !== "resume twice") return fauxAssistantMessage("noted");
				const resume = (n: number) => fauxToolCall("subagent", { prompt: `more ${n}`, description: `resume ${n}`, resume: id, run_in_background: true } as never);
				return fauxAssistantMessage([resume(1), resume(2)], { stopReason: "toolUse" });
			},
		});
		await parent.session.prompt("first");
		id = (toolResults(parent.session, "subagent")[0]?.details as { id: string }).id;
		await parent.session.prompt("resume twice");
		const [, one, two] = toolResults(parent.session, "subagent");
		const refused = [one, two].filter((r) => r?.isError);
		expect(refused).toHaveLength(1);
		expect(refused[0]?.text).toContain("is being resumed already");
		const accepted = ([one, two].find((r) => !r?.isError)?.details as { id: string }).id;
		await until(() => parent?.service().get(accepted)?.status === "completed", "the accepted resume to finish");
		const again = await parent.service().spawn({ prompt: "more 3", description: "resume 3", resume: id });
		expect((await again.done).status).toBe("completed");
	});

	it("resume continues the stored run with its model and refuses a type change", async () => {
		let id = "";
		let resumedSaw = 0;
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					if (turn.lastText.includes("second part")) {
						resumedSaw = turn.messages.filter((m) => m.role === "user").length;
						return fauxAssistantMessage("continued");
					}
					return fauxAssistantMessage("first part done");
				}
				if (turn.last?.role === "toolResult") return fauxAssistantMessage("ok");
				if (turn.lastText === "first") return spawn({ prompt: "do the first part", description: "first part", model: "faux/child-model" });
				if (turn.lastText === "again") return spawn({ prompt: "now the second part", description: "second part", resume: id });
				return spawn({ prompt: "explore instead", description: "type change", resume: id, subagent_type: "explore" });
			},
		});
		await parent.session.prompt("first");
		const [first] = toolResults(parent.session, "subagent");
		const firstDetails = fullResult(parent, first) as { id: string; model: string | null; transcript: string | null };
		id = firstDetails.id;
		expect(firstDetails.model).toBe("faux/child-model");
		await parent.session.prompt("again");
		const second = toolResults(parent.session, "subagent")[1];
		const secondDetails = fullResult(parent, second) as { model: string | null; transcript: string | null; status: string; text: string | null };
		expect(secondDetails.status).toBe("completed");
		expect(secondDetails.model).toBe("faux/child-model");
		expect(secondDetails.transcript).toBe(firstDetails.transcript);
		expect(secondDetails.text).toBe("continued");
		expect(resumedSaw).toBe(2);
		await parent.session.prompt("change type");
		const third = toolResults(parent.session, "subagent")[2];
		expect(third?.isError).toBe(true);
		expect(third?.text).toContain("resume-refused");
		id = "general-purpose-nosuch";
		await parent.session.prompt("again");
		const fourth = toolResults(parent.session, "subagent")[3];
		expect(fourth?.isError).toBe(true);
		expect(fourth?.text).toContain("resume-refused");
	});

	it("a persona that cannot be loaded refuses the spawn", async () => {
		parent = await createParent({
			script: (turn) => {
				if (turn.agent !== "parent") return fauxAssistantMessage("must not run");
				if (turn.step === 0) return spawn({ prompt: "review", description: "review it", persona: "ghost" });
				return fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		expect(result?.isError).toBe(true);
		expect(result?.text).toContain("persona-error");
		expect(parent.requests.filter((t) => t.agent !== "parent")).toHaveLength(0);
		expect(parent.events).toHaveLength(0);
	});
});
