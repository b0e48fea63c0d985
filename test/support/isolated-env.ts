/**
 * Every test file runs with its own HOME, PI_CODING_AGENT_DIR and TMPDIR, offline and without
 * telemetry, so nothing a test does touches the developer's pi configuration or the network.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-test-"));
for (const [name, dir] of [
	["HOME", "home"],
	["PI_CODING_AGENT_DIR", "agent"],
	["TMPDIR", "tmp"],
] as const) {
	const path = join(root, dir);
	mkdirSync(path, { recursive: true });
	process.env[name] = path;
}
process.env.PI_OFFLINE = "1";
process.env.PI_TELEMETRY = "0";
