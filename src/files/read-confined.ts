/**
 * Reading a `prompt_file` / `instructions_file` without letting it leave its scope root (spec 01
 * "Files a file points to"). Confinement is decided on the resolved real path: a `..` that stays
 * inside is fine; `..`, an absolute path elsewhere or a symlink pointing out is `path-escape`.
 * Used at load time (to report problems early) and at spawn time (the file is read again).
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { FileRef } from "./types.ts";

export type ConfinedRead = { ok: true; text: string } | { ok: false; code: "missing-file" | "path-escape"; message: string };

export type ConfinedCheck = { ok: true; path: string } | { ok: false; code: "missing-file" | "path-escape"; message: string };

/** Real path of `path`, resolving symlinks of the longest existing ancestor when it does not exist. */
function realish(path: string): string {
	let current = path;
	const rest: string[] = [];
	for (;;) {
		try {
			return rest.length === 0 ? realpathSync.native(current) : join(realpathSync.native(current), ...rest);
		} catch {
			const parent = dirname(current);
			if (parent === current) return path;
			rest.unshift(basename(current));
			current = parent;
		}
	}
}

function inside(child: string, root: string): boolean {
	const rel = relative(root, child);
	return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Where `ref` points, if it exists and stays inside its root; otherwise why not. */
export function checkConfined(ref: FileRef): ConfinedCheck {
	const target = resolve(ref.baseDir, ref.written);
	const real = realish(target);
	const root = realish(ref.root);
	const where = `"${ref.written}" (from ${ref.declaredIn})`;
	if (!inside(real, root)) {
		return {
			ok: false,
			code: "path-escape",
			message: `${where} leaves ${ref.root}: it resolves to ${real}`,
		};
	}
	if (!existsSync(real)) {
		return { ok: false, code: "missing-file", message: `${where} does not exist (looked for ${target})` };
	}
	try {
		if (statSync(real).isDirectory()) {
			return { ok: false, code: "missing-file", message: `${where} is a directory, not a file (${target})` };
		}
	} catch (error) {
		return { ok: false, code: "missing-file", message: `${where} cannot be read: ${(error as Error).message}` };
	}
	return { ok: true, path: real };
}

/** Reads the file `ref` names, confined to its root; the text is trimmed. */
export function readConfined(ref: FileRef): ConfinedRead {
	const checked = checkConfined(ref);
	if (!checked.ok) return checked;
	try {
		return { ok: true, text: readFileSync(checked.path, "utf8").trim() };
	} catch (error) {
		const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
		return { ok: false, code: "missing-file", message: `"${ref.written}" (from ${ref.declaredIn}) cannot be read: ${cause}` };
	}
}
