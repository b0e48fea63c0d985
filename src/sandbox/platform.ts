/**
 * Whether this machine can run the OS sandbox (ADR 0150), checked without loading the library:
 * Linux needs `bwrap`, `socat` and `rg` on PATH (what @anthropic-ai/sandbox-runtime runs), macOS
 * has `sandbox-exec`; other platforms cannot. Cached per PATH, so a test (or a user) that changes
 * PATH is seen.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { SandboxPlatform } from "../resolve/types.ts";
import { SANDBOX_INSTALL_HINT } from "../resolve/sandbox.ts";

const cache = new Map<string, SandboxPlatform>();

/** The absolute path of `name` on `path`, or null. */
export function onPath(name: string, path: string): string | null {
	for (const dir of path.split(delimiter)) {
		if (dir === "") continue;
		const candidate = join(dir, name);
		try {
			accessSync(candidate, constants.X_OK);
			return candidate;
		} catch {
			// not here
		}
	}
	return null;
}

/** What the sandbox needs here and whether it is there. */
export function sandboxPlatform(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): SandboxPlatform {
	const path = env.PATH ?? "";
	const key = `${platform}\0${path}`;
	const known = cache.get(key);
	if (known) return known;
	let reason: string | null = null;
	if (platform === "linux") {
		const missing = ["bwrap", "socat", "rg"].filter((tool) => onPath(tool, path) === null);
		if (missing.length > 0) reason = `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not on PATH`;
	} else if (platform === "darwin") {
		if (onPath("sandbox-exec", path) === null && onPath("sandbox-exec", "/usr/bin") === null) reason = "sandbox-exec is not available";
	} else {
		reason = `${platform} has no supported OS sandbox (Linux with bubblewrap, macOS)`;
	}
	const found: SandboxPlatform = { available: reason === null, reason, hint: SANDBOX_INSTALL_HINT };
	cache.set(key, found);
	return found;
}
