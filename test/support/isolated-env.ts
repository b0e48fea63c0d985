/**
 * Every test file runs with its own HOME, PI_CODING_AGENT_DIR and TMPDIR, offline and without
 * telemetry, so nothing a test does touches the developer's pi configuration (or other tools'
 * agent files) or the network. The folder is removed when the file's tests end (issue 19: a run
 * used to leave ~90 of them, ~80 MB).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

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

// Retries: a child process or git may still be letting go of a file when the last test ends.
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
