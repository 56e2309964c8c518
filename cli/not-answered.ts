// What a lean hot bundle (status-lean.ts) returns instead of an exit status when the case is not
// its own: the dispatcher (hot/dispatch.ts) then runs the command's full hot bundle, which answers every case.
export const NOT_ANSWERED = -1;
