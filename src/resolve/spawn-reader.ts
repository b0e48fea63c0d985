/**
 * The file-system `SpawnReader` both hosts hand the resolver: `prompt_file` / `instructions_file`
 * read through the loader's confined reader (spec 01 "Files a file points to"), request `cwd`
 * checked to be an existing directory, and what `file` / `directory` inputs point at. The resolver
 * itself never touches the file system.
 */
import { realpathSync, statSync } from "node:fs";
import { readConfined } from "../files/read-confined.ts";
import type { SpawnReader } from "./types.ts";

export const spawnReader: SpawnReader = {
	read: (ref) => readConfined(ref),
	isDirectory(path) {
		try {
			return statSync(path).isDirectory();
		} catch {
			return false;
		}
	},
	locate(path) {
		try {
			const realPath = realpathSync.native(path);
			const stat = statSync(realPath);
			return { kind: stat.isFile() ? "file" : stat.isDirectory() ? "directory" : "other", realPath };
		} catch {
			return null;
		}
	},
};
