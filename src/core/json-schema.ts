/**
 * JSON Schema for structured results (`output_schema`, ADR 0098): checking that a schema is one
 * (ajv's meta-schema check and strict mode, so a misspelt keyword is an error, not a schema that
 * accepts everything) and validating a value against it. ajv is loaded on first use only: a
 * spawn or a `cadre list` without a schema never pays for it. Compiled schemas are cached by
 * their JSON text, because definitions are re-read at every spawn.
 */
import { createRequire } from "node:module";

/** A compiled schema: `check` answers null for a valid value, else its validation errors. */
export interface CompiledSchema {
	check(value: unknown): string[] | null;
}

export type SchemaCompile = { ok: true; schema: CompiledSchema } | { ok: false; message: string };

interface AjvError {
	instancePath: string;
	message?: string;
	params?: Record<string, unknown>;
}
interface AjvValidate {
	(value: unknown): boolean;
	errors?: AjvError[] | null;
}
interface AjvLike {
	compile(schema: object): AjvValidate;
	removeSchema(idOrSchema: string | object): unknown;
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

let engines: { draft2020: AjvLike; draft07: AjvLike } | null = null;

/** ajv for draft 2020-12 (the default) and draft-07 (a schema whose `$schema` says so), with formats. */
function ajv(schema: Record<string, unknown>): AjvLike {
	if (!engines) {
		const require = createRequire(import.meta.url);
		const Ajv2020 = require("ajv/dist/2020").default as new (options: object) => AjvLike;
		const Ajv07 = require("ajv").default as new (options: object) => AjvLike;
		const addFormats = require("ajv-formats").default as (ajv: AjvLike) => void;
		// Strict about what is not JSON Schema (an unknown keyword, an unknown format), not about style
		// (a tuple without maxItems, `properties` without `type: object` are valid schemas).
		const options = { allErrors: true, strictSchema: true, strictNumbers: true, strictTypes: false, strictTuples: false, strictRequired: false, validateFormats: true };
		engines = { draft2020: new Ajv2020(options), draft07: new Ajv07(options) };
		addFormats(engines.draft2020);
		addFormats(engines.draft07);
	}
	return typeof schema.$schema === "string" && DRAFT_07.test(schema.$schema) ? engines.draft07 : engines.draft2020;
}

/** One validation error as a model can act on it: `/score: must be integer`. */
function describe(error: AjvError): string {
	const at = error.instancePath === "" ? "(the result)" : error.instancePath;
	const extra = error.params?.additionalProperty ? ` (${String(error.params.additionalProperty)})` : "";
	return `${at}: ${error.message ?? "is not valid"}${extra}`;
}

const cache = new Map<string, SchemaCompile>();
const CACHE_LIMIT = 64;

/** Compiles `schema` (a JSON Schema object), or says why it is not a usable schema. */
export function compileSchema(schema: unknown): SchemaCompile {
	if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
		return { ok: false, message: "a JSON Schema is an object (for example {\"type\": \"object\", \"properties\": {…}})" };
	}
	let key: string;
	try {
		key = JSON.stringify(schema);
	} catch (error) {
		return { ok: false, message: `it is not JSON: ${(error as Error).message}` };
	}
	const cached = cache.get(key);
	if (cached) return cached;
	let compiled: SchemaCompile;
	try {
		const engine = ajv(schema as Record<string, unknown>);
		// ajv keeps every schema with an `$id`: another schema of the same `$id` replaces it.
		const id = (schema as { $id?: unknown }).$id;
		if (typeof id === "string") engine.removeSchema(id);
		// ajv keeps what it compiles: a copy, so later changes to the caller's object cannot reach it.
		const validate = engine.compile(JSON.parse(key) as object);
		compiled = {
			ok: true,
			schema: {
				check(value) {
					if (validate(value)) return null;
					return (validate.errors ?? []).map(describe);
				},
			},
		};
	} catch (error) {
		compiled = { ok: false, message: (error as Error).message };
	}
	if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
	cache.set(key, compiled);
	return compiled;
}
