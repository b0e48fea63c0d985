/**
 * Owners of on-disk state: this process is alive, a process that ended is gone, a reused pid with
 * another start time is gone, another host is unknown, and the one-line form round-trips.
 */
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { currentOwner, formatOwner, ownerState, parseOwner } from "../../src/runtime/owner.ts";

describe("owner", () => {
	it("this process is alive", () => {
		const me = currentOwner();
		expect(me.pid).toBe(process.pid);
		expect(ownerState(me)).toBe("alive");
	});

	it("a process that has ended is gone", () => {
		const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
		const pid = Number(child.stdout);
		expect(pid).toBeGreaterThan(0);
		expect(ownerState({ pid, start: null, host: hostname() })).toBe("gone");
	});

	it("a running pid with another start time is a later process: the owner is gone", () => {
		const me = currentOwner();
		if (me.start === null) return; // no procfs here: only the pid can be compared
		expect(ownerState({ ...me, start: String(Number(me.start) + 1) })).toBe("gone");
	});

	it("an owner on another host is unknown, never gone", () => {
		expect(ownerState({ pid: 1, start: "1", host: `${hostname()}-elsewhere` })).toBe("unknown");
	});

	it("round-trips through its one-line form, and rejects other text", () => {
		const owner = { pid: 4242, start: "123456", host: "box one" };
		expect(parseOwner(formatOwner(owner))).toEqual(owner);
		expect(parseOwner(formatOwner({ ...owner, start: null }))).toEqual({ ...owner, start: null });
		expect(parseOwner("initializing")).toBeNull();
		expect(parseOwner(null)).toBeNull();
		expect(parseOwner("cadre-owner pid=x start=1 host=h")).toBeNull();
	});
});
