/**
 * Writing cadre files safely (ADR 0094): only inside the scope's root by real path (a folder that
 * is a symlink out of it is refused), only regular files (a symlink or anything else at the
 * target is never written through), and atomically (a new file beside the target, then a rename),
 * so a reader never sees half a file and nothing outside the scope is ever touched.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, realpathSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { nameKey } from "../core/values.ts";
import { isInside } from "../files/read-confined.ts";
import { readForeignFile } from "./read-foreign.ts";

type Result<T> = ({ ok: true } & T) | { ok: false; why: string };

/**
 * The folder `parts` below `root` (created unless `dryRun`), refused when any part is not a
 * folder or resolves outside `root`. With `dryRun`, a missing folder is fine: it would be created.
 */
export function targetFolder(root: string, parts: readonly string[], dryRun: boolean): Result<{ dir: string; exists: boolean }> {
	let realRoot: string;
	try {
		if (!dryRun) mkdirSync(root, { recursive: true });
		realRoot = realpathSync.native(root);
	} catch (error) {
		if (dryRun) return { ok: true, dir: join(root, ...parts), exists: false };
		return { ok: false, why: `cannot create ${root} (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
	}
	let dir = root;
	for (const part of parts) {
		dir = join(dir, part);
		let stat: ReturnType<typeof lstatSync> | null = null;
		try {
			stat = lstatSync(dir);
		} catch {
			stat = null;
		}
		if (stat === null) {
			if (dryRun) return { ok: true, dir: join(root, ...parts), exists: false };
			try {
				mkdirSync(dir);
			} catch (error) {
				return { ok: false, why: `cannot create ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
			}
			continue;
		}
		if (stat.isSymbolicLink()) {
			let real: string;
			try {
				real = realpathSync.native(dir);
			} catch {
				return { ok: false, why: `${dir} is a symlink that points nowhere` };
			}
			if (!isInside(real, realRoot)) return { ok: false, why: `${dir} is a symlink out of ${root}; cadre never writes outside the scope` };
			if (!lstatSync(real).isDirectory()) return { ok: false, why: `${dir} is not a folder` };
			continue;
		}
		if (!stat.isDirectory()) return { ok: false, why: `${dir} is not a folder` };
	}
	return { ok: true, dir, exists: true };
}

/** A file in `dir` whose name is `name` up to case, with one of `extensions` (cadre names ignore case). */
export function sameNamedFiles(dir: string, name: string, extensions: readonly string[]): string[] {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch {
		return [];
	}
	return names
		.filter((file) => {
			const ext = extensions.find((e) => file.toLowerCase().endsWith(e));
			return ext !== undefined && nameKey(file.slice(0, -ext.length)) === nameKey(name);
		})
		.sort()
		.map((file) => join(dir, file));
}

/** The current text of a target file: null when there is none; refused when it is not a regular file. */
export function currentText(path: string, root: string, confine: "project" | "user"): Result<{ text: string | null }> {
	let stat: ReturnType<typeof lstatSync>;
	try {
		stat = lstatSync(path);
	} catch {
		return { ok: true, text: null };
	}
	if (stat.isSymbolicLink()) return { ok: false, why: "it is a symlink, and cadre never writes through one" };
	if (!stat.isFile()) return { ok: false, why: "it is not a regular file" };
	const read = readForeignFile(path, root, confine);
	return read.ok ? { ok: true, text: read.text } : { ok: false, why: read.why };
}

/** Writes `text` to `path` atomically: a new file beside it, then a rename over it. */
export function writeAtomically(path: string, text: string): Result<object> {
	const temp = `${path}.cadre-import-${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`;
	try {
		const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
		try {
			writeSync(fd, text);
		} finally {
			closeSync(fd);
		}
		renameSync(temp, path);
		return { ok: true };
	} catch (error) {
		rmSync(temp, { force: true });
		return { ok: false, why: `cannot write it (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
	}
}
