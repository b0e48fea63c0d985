/**
 * Issue 25: spreading runs over workspaces — least loaded first, each workspace's maxConcurrent
 * respected, waiting in order while all are full — and a batch of 12 over two real sshds, counted
 * at the servers.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlacer, pickWorkspace } from "../../src/workspaces/placement.ts";
import { shq } from "../../src/workspaces/ssh-connection.ts";
import { openWorkspaceLink, type WorkspaceLink } from "../../src/workspaces/workspace-link.ts";
import { sshdMissing, startSshd, type TestSshd } from "../support/sshd.ts";

describe("pickWorkspace", () => {
	const capacity = new Map([
		["a", 2],
		["b", 4],
	]);
	it("takes the least loaded relative to its maxConcurrent, then the order written", () => {
		expect(pickWorkspace(["a", "b"], capacity, new Map())).toBe("a");
		expect(pickWorkspace(["a", "b"], capacity, new Map([["a", 1]]))).toBe("b");
		expect(pickWorkspace(["a", "b"], capacity, new Map([["a", 1], ["b", 2]]))).toBe("a");
		expect(pickWorkspace(["a", "b"], capacity, new Map([["a", 2], ["b", 3]]))).toBe("b");
		expect(pickWorkspace(["a", "b"], capacity, new Map([["a", 2], ["b", 4]]))).toBeNull();
		// local has no limit here (the registry's maxConcurrent has): it is placed by its count
		expect(pickWorkspace(["local", "a"], capacity, new Map([["local", 9]]))).toBe("a");
		expect(pickWorkspace(["local", "a"], capacity, new Map([["a", 2]]))).toBe("local");
	});

	it("makes runs wait in order when every allowed workspace is full, and an abort leaves the queue", async () => {
		const placer = createPlacer([{ name: "a", max: 1 }]);
		const first = await placer.place(["a"]);
		const order: string[] = [];
		const controller = new AbortController();
		const second = placer.place(["a"]).then((p) => (order.push("second"), p));
		const aborted = placer.place(["a"], controller.signal).catch(() => order.push("aborted"));
		const third = placer.place(["a"]).then((p) => (order.push("third"), p));
		controller.abort();
		await aborted;
		first.release();
		(await second).release();
		(await third).release();
		expect(order).toEqual(["aborted", "second", "third"]);
		expect(placer.running().get("a")).toBe(0);
	});
});

const missing = sshdMissing();

describe.skipIf(missing !== null)("a batch over two sshds", () => {
	const servers: TestSshd[] = [];
	const links = new Map<string, WorkspaceLink>();
	beforeAll(async () => {
		for (const name of ["a", "b"]) {
			const sshd = await startSshd();
			servers.push(sshd);
			mkdirSync(join(sshd.root, "running"));
			links.set(name, await openWorkspaceLink({ name, host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts }));
		}
	});
	afterAll(async () => {
		for (const link of links.values()) link.close();
		for (const sshd of servers) await sshd.stop();
	});

	it("runs 12 items over two workspaces with each one's maxConcurrent respected, counted at the server", async () => {
		const max = { a: 2, b: 3 } as Record<string, number>;
		const placer = createPlacer([
			{ name: "a", max: 2 },
			{ name: "b", max: 3 },
		]);
		const roots = { a: servers[0]?.root, b: servers[1]?.root } as Record<string, string>;
		const seen: { workspace: string; concurrent: number }[] = [];
		await Promise.all(
			Array.from({ length: 12 }, async (_, i) => {
				const placement = await placer.place(["a", "b"]);
				try {
					const running = join(roots[placement.workspace] as string, "running");
					const connection = await (links.get(placement.workspace) as WorkspaceLink).connection();
					const mark = shq(join(running, `item-${i}`));
					// each item counts the items running on its server while it runs
					const out = await connection.exec(`mkdir ${mark} && sleep 0.4 && ls ${shq(running)} | wc -l; rmdir ${mark}`);
					seen.push({ workspace: placement.workspace, concurrent: Number(out.stdout.toString().trim()) });
				} finally {
					placement.release();
				}
			}),
		);
		expect(seen).toHaveLength(12);
		for (const name of ["a", "b"]) {
			const here = seen.filter((s) => s.workspace === name);
			expect(here.length).toBeGreaterThan(0);
			expect(Math.max(...here.map((s) => s.concurrent))).toBeLessThanOrEqual(max[name] as number);
		}
		// both were used to their limit at some point: the spread is real, not one at a time
		expect(Math.max(...seen.filter((s) => s.workspace === "b").map((s) => s.concurrent))).toBeGreaterThan(1);
	}, 20_000);
});

describe("withRemoteWorkspaces", () => {
	it("keeps the local hooks' repository lookup for a local run (the receipt asks it instead of running git, ADR 0188)", async () => {
		const { withRemoteWorkspaces } = await import("../../src/workspaces/remote-isolation.ts");
		const asked: string[] = [];
		const local = {
			prepare: async () => ({ cwd: null, report: null }),
			finish: async () => null,
			repoRoot: async (_run: unknown, cwd: string) => {
				asked.push(cwd);
				return "/repo";
			},
		};
		const hooks = withRemoteWorkspaces(local as never, { settings: () => null, parentCwd: "/repo" });
		expect(await hooks.repoRoot?.({ id: "explore-1" } as never, "/repo/src")).toBe("/repo");
		expect(asked).toEqual(["/repo/src"]);
	});
});
