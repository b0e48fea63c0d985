/**
 * pi's built-in model catalog (pi-ai's generated list), for `cadre check`'s `model-unknown`
 * warning (ADR 0107). Only pi-ai's model list is loaded — never pi's SDK — and only when called.
 */

/** One model pi knows without a `models.json`. */
export interface BuiltinModel {
	provider: string;
	id: string;
	name?: string;
}

/** pi's built-in models; none when pi-ai cannot be loaded. */
export async function builtinModels(): Promise<BuiltinModel[]> {
	try {
		const all = await import("@earendil-works/pi-ai/providers/all");
		return all.getBuiltinProviders().flatMap((provider) => all.getBuiltinModels(provider as never).map((m: { id: string; name?: string }) => ({ provider, id: m.id, name: m.name })));
	} catch {
		return [];
	}
}
