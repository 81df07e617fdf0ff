// The API key field of /docs (Scalar's "Value" input for X-API-Key). Scalar shows a sample key as its
// placeholder, which reads like a real key someone left there; no option of Scalar's changes it,
// so app/docs/scalar-reference.tsx puts this hint in its place wherever the field is rendered.
export const SCALAR_SAMPLE_KEY = "QUxMIFlPVVIgQkFTRSBBUkUgQkVMT05HIFRPIFVT";

export const API_KEY_FIELD_HINT = "Paste your API key (the bot's /newkey gives one)";
