/**
 * The file-system `SpawnReader` both hosts hand the resolver: `prompt_file` / `instructions_file`
 * read through the loader's confined reader (spec 01 "Files a file points to"), and request `cwd`
 * checked to be an existing directory. The resolver itself never touches the file system.
 */
import { statSync } from "node:fs";
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
};
