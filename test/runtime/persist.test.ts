/**
 * Runs outlive the parent session (issue 9 item 13, ADR 0068/0069), through real pi sessions: a
 * run's record is written next to its transcript; a new parent session over the same session file
 * (what `/resume` and `pi -c` do) lists it and resumes it from the stored config; a record left
 * "running" by a process that is gone loads as `interrupted`; a corrupt record is skipped with a
 * diagnostic; a transcript directory that cannot be written is reported in the result, not a crash.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { currentOwner, formatOwner } from "../../src/runtime/owner.ts";
import { makeRepo } from "../isolation/support/repo.ts";
import { commandOutput, createParent, fauxAssistantMessage, fauxToolCall, type Parent, fullResult, type Script, toolResults } from "./harness.ts";

const parents: Parent[] = [];
afterEach(() => {
	for (const parent of parents.splice(0)) parent.dispose();
});

const spawn = (args: Record<string, unknown>) => fauxAssistantMessage([fauxToolCall("subagent", args as never)], { stopReason: "toolUse" });

interface Details {
	id: string;
	status: string;
	model: string;
	transcript: string;
	text: string;
	persistError?: string | null;
	error: string | null;
}

/** The parent spawns on "first", resumes `target.id` on "again"; the child answers by prompt. */
function script(target: { id: string; userMessagesSeen: number }): Script {
	return (turn) => {
		if (turn.agent === "general-purpose") {
			if (turn.lastText.includes("second part")) {
				target.userMessagesSeen = turn.messages.filter((m) => m.role === "user").length;
				return fauxAssistantMessage("continued");
			}
			return fauxAssistantMessage("first part done");
		}
		if (turn.last?.role === "toolResult") return fauxAssistantMessage("ok");
		if (turn.lastText === "first") return spawn({ prompt: "do the first part", description: "first part", model: "faux/child-model" });
		if (turn.lastText === "again") return spawn({ prompt: "now the second part", description: "second part", resume: target.id });
		return fauxAssistantMessage("noted");
	};
}

async function open(options: Parameters<typeof createParent>[0]): Promise<Parent> {
	const parent = await createParent(options);
	parents.push(parent);
	return parent;
}

/** A parent session that ran one child to completion, then ended; its files stay. */
async function finishedSession(target: { id: string; userMessagesSeen: number }) {
	const first = await open({ persisted: true, script: script(target) });
	await first.session.prompt("first");
	// The whole result from the service (stored details are slim, ADR 0193).
	const details = fullResult(first, toolResults(first.session, "subagent")[0]) as Details;
	target.id = details.id;
	const sessionFile = first.session.sessionFile as string;
	await first.shutdown();
	return { first, details, sessionFile, record: join(dirname(details.transcript), `${details.id}.run.json`) };
}

/** The pid of a process that has exited. */
function deadPid(): number {
	const result = spawnSync(process.execPath, ["-e", ""]);
	return result.pid as number;
}

describe("runs outlive the parent session", () => {
	it("a run is persisted; a new parent session over the same session file lists it and resumes it", async () => {
		const target = { id: "", userMessagesSeen: 0 };
		const { first, details, sessionFile, record } = await finishedSession(target);
		expect(existsSync(record)).toBe(true);
		expect(details.persistError ?? null).toBeNull();

		const second = await open({ agentDir: first.agentDir, cwd: first.cwd, sessionFile, script: script(target) });
		const listed = second.service().list();
		expect(listed.map((run) => run.id)).toEqual([details.id]);
		expect(listed[0]).toMatchObject({ status: "completed", text: "first part done", model: "faux/child-model", transcript: details.transcript, turns: 1 });
		expect(second.service().get(details.id)?.description).toBe("first part");
		expect(await commandOutput(second, "/subagents")).toMatch(new RegExp(`${details.id} +completed +general-purpose +"first part"`));

		await second.session.prompt("again");
		// The continued session holds the first run's tool result too: the resume's is the last.
		const resumed = toolResults(second.session, "subagent").at(-1);
		expect(resumed?.isError).toBe(false);
		const resumedDetails = fullResult(second, resumed) as Details;
		expect(resumedDetails).toMatchObject({ status: "completed", model: "faux/child-model", transcript: details.transcript, text: "continued" });
		expect(target.userMessagesSeen).toBe(2);
		expect(second.service().list().map((run) => run.id)).toEqual([details.id, resumedDetails.id]);
	});

	it("a run that was running when its process died loads as interrupted, and can be resumed", async () => {
		const target = { id: "", userMessagesSeen: 0 };
		const { first, details, sessionFile, record } = await finishedSession(target);
		const stored = JSON.parse(readFileSync(record, "utf8")) as Record<string, unknown>;
		const pid = deadPid();
		writeFileSync(record, JSON.stringify({ ...stored, state: "running", endedAt: null, owner: formatOwner({ pid, start: "1", host: hostname() }) }));

		const second = await open({ agentDir: first.agentDir, cwd: first.cwd, sessionFile, script: script(target) });
		const run = second.service().get(details.id);
		expect(run?.status).toBe("interrupted");
		expect(run?.error).toContain(`pid ${pid}`);
		expect(await commandOutput(second, "/subagents")).toMatch(new RegExp(`${details.id} +interrupted`));

		await second.session.prompt("again");
		const resumed = toolResults(second.session, "subagent").at(-1);
		expect((resumed?.details as Details).status).toBe("completed");
		expect(target.userMessagesSeen).toBe(2);
	});

	it("a run another live process owns is listed as that process's, and the end of this session leaves it alone", async () => {
		const target = { id: "", userMessagesSeen: 0 };
		const { first, details, sessionFile, record } = await finishedSession(target);
		const stored = JSON.parse(readFileSync(record, "utf8")) as Record<string, unknown>;
		const running = JSON.stringify({ ...stored, state: "running", endedAt: null, owner: formatOwner(currentOwner()) });
		writeFileSync(record, running);

		const second = await open({ agentDir: first.agentDir, cwd: first.cwd, sessionFile, script: script(target), mode: "print" });
		expect(second.service().get(details.id)).toMatchObject({ status: "running" });
		expect(await commandOutput(second, `/subagents stop ${details.id}`)).toContain(`${details.id} is running in another pi process (pid ${process.pid}); stop it there.`);
		const stderr: string[] = [];
		const write = process.stderr.write.bind(process.stderr);
		process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
		try {
			await second.shutdown();
		} finally {
			process.stderr.write = write;
		}
		expect(stderr.join("")).not.toContain(details.id);
		expect(readFileSync(record, "utf8")).toBe(running);
	});

	it("a corrupt record is skipped with a diagnostic; the good ones still load", async () => {
		const target = { id: "", userMessagesSeen: 0 };
		const { first, details, sessionFile, record } = await finishedSession(target);
		const dir = dirname(record);
		writeFileSync(join(dir, "general-purpose-broken.run.json"), "{ not json");
		const good = JSON.parse(readFileSync(record, "utf8")) as Record<string, unknown>;
		writeFileSync(join(dir, "general-purpose-shape1.run.json"), JSON.stringify({ ...good, id: "general-purpose-shape1", state: "bogus" }));
		mkdirSync(join(dir, "general-purpose-dir123.run.json"));
		writeFileSync(join(dir, "general-purpose-esc\u001b[2J.run.json"), "\u001b]0;title\u0007");

		const second = await open({ agentDir: first.agentDir, cwd: first.cwd, sessionFile, script: script(target) });
		expect(second.service().list().map((run) => run.id)).toEqual([details.id]);
		const listing = await commandOutput(second, "/subagents");
		expect(listing).toContain(details.id);
		expect(listing).toMatch(/general-purpose-broken\.run\.json:1:1 warning run-record-invalid /);
		expect(listing).toMatch(/general-purpose-shape1\.run\.json:1:1 warning run-record-invalid .*state/);
		expect(listing).toMatch(/general-purpose-dir123\.run\.json:1:1 warning run-record-invalid .*is a directory, not a file/);
		// A record's name and content reach the terminal escaped (ADR 0075).
		expect(listing).toContain("general-purpose-esc\\x1b[2J.run.json:1:1 warning run-record-invalid");
		expect(listing).not.toMatch(/\x1b|\x07/);
	});

	it("a session forked from another lists the runs made before the fork and resumes them in a copy of their transcript", async () => {
		const target = { id: "", userMessagesSeen: 0 };
		const first = await open({ persisted: true, script: script(target) });
		await first.session.prompt("first");
		const before = fullResult(first, toolResults(first.session, "subagent")[0]) as Details;
		const sessionFile = first.session.sessionFile as string;
		// What pi's /fork does: a new session file holding the branch, its header naming the source.
		const source = SessionManager.open(sessionFile, dirname(sessionFile));
		const forked = source.createBranchedSession(source.getLeafId() as string) as string;
		await first.session.prompt("first");
		const after = toolResults(first.session, "subagent")[1]?.details as Details;
		expect(after.id).not.toBe(before.id);
		const original = readFileSync(before.transcript, "utf8");

		const fork = await open({ agentDir: first.agentDir, cwd: first.cwd, sessionFile: forked, script: script(target) });
		expect(fork.service().list().map((run) => run.id)).toEqual([before.id]);
		target.id = before.id;
		await fork.session.prompt("again");
		const resumed = fullResult(fork, toolResults(fork.session, "subagent").at(-1)) as Details;
		expect(resumed).toMatchObject({ status: "completed", text: "continued" });
		expect(target.userMessagesSeen).toBe(2);
		expect(resumed.transcript).not.toBe(before.transcript);
		expect(dirname(resumed.transcript)).toBe(dirname(fork.session.sessionFile as string) + `/cadre/${fork.session.sessionId}`);
		expect(readFileSync(before.transcript, "utf8")).toBe(original);
	});

	it("a restarted session resumes the last run of a worktree resume chain in the chain's worktree", async () => {
		const repo = makeRepo({ "a.txt": "a\n" }).root;
		const resumeOf = { id: "" };
		const seen: string[] = [];
		const worktreeScript: Script = (turn) => {
			if (turn.agent === "general-purpose") {
				const file = /write (\S+)/.exec(turn.lastText)?.[1];
				if (turn.last?.role === "user" && file) return fauxAssistantMessage([fauxToolCall("bash", { command: `ls; echo x > ${file}` })], { stopReason: "toolUse" });
				seen.push(turn.lastText.trim());
				return fauxAssistantMessage("done");
			}
			if (turn.last?.role === "toolResult") return fauxAssistantMessage("ok");
			const file = /^write (\S+)$/.exec(turn.lastText)?.[1] ?? "";
			const resume = resumeOf.id ? { resume: resumeOf.id } : { isolation: "worktree" };
			return spawn({ prompt: `write ${file}`, description: `write ${file}`, ...resume });
		};
		const first = await open({ cwd: repo, persisted: true, script: worktreeScript });
		await first.session.prompt("write b.txt");
		const one = toolResults(first.session, "subagent")[0]?.details as Details & { isolation: { branch: string } };
		resumeOf.id = one.id;
		await first.session.prompt("write c.txt");
		const two = toolResults(first.session, "subagent")[1]?.details as Details & { isolation: { branch: string } };
		expect(two.isolation.branch).toBe(`cadre/${one.id}`);
		await first.shutdown();

		resumeOf.id = two.id;
		const second = await open({ agentDir: first.agentDir, cwd: repo, sessionFile: first.session.sessionFile as string, script: worktreeScript });
		await second.session.prompt("write d.txt");
		const three = toolResults(second.session, "subagent").at(-1)?.details as Details & { isolation: { branch: string } };
		expect(three.status).toBe("completed");
		expect(three.isolation.branch).toBe(`cadre/${one.id}`);
		// The third child listed the chain's files before writing its own.
		expect(seen.at(-1)).toMatch(/b\.txt\s+c\.txt/);
	});

	it("a transcript directory that cannot be written: the result says the run was not persisted; nothing crashes", async () => {
		const target = { id: "", userMessagesSeen: 0 };
		const parent = await open({ persisted: true, script: script(target) });
		// The parent's transcript directory is `<session dir>/cadre/<session id>`: make `cadre` a file.
		const sessionDir = dirname(parent.session.sessionFile as string);
		rmSync(join(sessionDir, "cadre"), { recursive: true, force: true });
		writeFileSync(join(sessionDir, "cadre"), "not a directory");
		await parent.session.prompt("first");
		const [result] = toolResults(parent.session, "subagent");
		const details = result?.details as Details;
		// The child's own transcript cannot be written either: the run fails and says why.
		expect(details.status).toBe("failed");
		expect(details.error).toContain("ENOTDIR");
		expect(details.persistError).toMatch(/could not be saved/);
		expect(details.persistError).toContain(join(sessionDir, "cadre"));
		expect(result?.text).toMatch(/Not persisted: /);
		expect(parent.service().get(details.id)?.persistError).toBe(details.persistError);
	});
});
