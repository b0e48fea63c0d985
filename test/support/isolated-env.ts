/**
 * Every test file runs with its own HOME, PI_CODING_AGENT_DIR and TMPDIR, offline and without
 * telemetry, so nothing a test does touches the developer's pi configuration (or other tools'
 * agent files) or the network.
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
// Other tools' homes default below HOME (cadre import and the foreign-file notices read them).
delete process.env.XDG_CONFIG_HOME;
delete process.env.CODEX_HOME;
process.env.PI_OFFLINE = "1";
process.env.PI_TELEMETRY = "0";
