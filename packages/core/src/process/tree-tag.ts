/**
 * The variable that marks every process of a killable command's tree; its value identifies the
 * tree, so a kill finds the processes that left the process group (setsid, double fork). The
 * remote wrapper scripts use the same name; backends that start processes themselves (local) set it too.
 */
export const TREE_TAG_VARIABLE = "CODECALL_TREE";
