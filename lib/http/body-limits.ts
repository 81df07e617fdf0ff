// Request body limits outside the JSON API (which uses MAX_BODY_BYTES): what the lean host lets
// through to Next, and Next's own limit for server actions. The dashboard's code upload is a server
// action, so this is its limit too.
export const NEXT_BODY_LIMIT_BYTES = 1024 * 1024;
