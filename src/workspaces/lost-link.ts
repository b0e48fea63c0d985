/**
 * A run whose workspace is lost fails `workspace-lost` (issue 25, ADR 0183): the child's session
 * is aborted once the link's grace period ran out, and its `run` rejects with the link's error —
 * so the run ends `failed` with that message, not as if the model had stopped on its own.
 */
import type { ChildHandle } from "../runtime/pi/child-session.ts";
import type { WorkspaceError } from "./ssh-connection.ts";

/** `handle`, with `run` failing `workspace-lost` when `lost` settles first. */
export function failOnLostLink(handle: ChildHandle, lost: Promise<WorkspaceError>): ChildHandle {
	let lostError: WorkspaceError | null = null;
	void lost.then((error) => {
		lostError = error;
		void handle.abort().catch(() => undefined);
	});
	const run = async (prompt: string) => {
		await Promise.race([handle.run(prompt), lost.then(() => undefined)]);
		if (lostError) throw new Error(`workspace-lost: ${(lostError as WorkspaceError).message}`);
	};
	return new Proxy(handle, { get: (target, key, receiver) => (key === "run" ? run : Reflect.get(target, key, receiver)) });
}
