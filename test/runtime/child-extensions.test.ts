/**
 * Children reload the parent's extensions except cadre itself (depth 1), whichever of cadre's
 * entries pi loaded: the checkout as a package (`pi -e <checkout>`, `pi install <checkout>` →
 * `extension/index.ts`) or the extension module named directly.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { discoverChildExtensions } from "../../src/runtime/pi/child-extensions.ts";
import { REPO_ROOT } from "../support/cli.ts";

const FIXTURE = join(REPO_ROOT, "test/pi/fixtures/scripted-model.ts");

async function childPaths(extraPaths: string[]): Promise<string[]> {
	const cwd = join(process.env.TMPDIR as string, "project");
	mkdirSync(cwd, { recursive: true });
	const set = await discoverChildExtensions({ cwd, agentDir: process.env.PI_CODING_AGENT_DIR as string, projectTrusted: false, exclude: [], extraPaths });
	return set.paths;
}

describe("cadre's own entries stay out of children", () => {
	it("the checkout loaded as a package", async () => {
		expect(await childPaths([REPO_ROOT, FIXTURE])).toEqual([FIXTURE]);
	});

	it("the extension module named directly", async () => {
		expect(await childPaths([join(REPO_ROOT, "src/hosts/pi/extension.ts"), FIXTURE])).toEqual([FIXTURE]);
	});
});
