/**
 * The names of cadre's own tools in a parent pi session (their schemas are in
 * src/hosts/pi/tools.ts). A parent's tools with these names are never a child's (depth 1) and never
 * count as the parent's tools. Kept apart so spawning does not load the tool schemas.
 */
import { DELEGATION_TOOLS } from "../../core/cadre-tools.ts";

export { RESULT_TOOL, STEER_TOOL, SUBAGENT_TOOL } from "../../core/cadre-tools.ts";
/** A parent's own delegation tools: never in a child's universe; a child gets them only from its resolved config (issue 21). */
export const SPAWN_TOOLS: ReadonlySet<string> = new Set(DELEGATION_TOOLS);
