// A supplier kind's settings as the Suppliers page shows them: one input per setting, each kind
// listing its own (kinds/<kind>.ts). How a stored setting fills its input and how a submitted form
// becomes settings again live here, once for every kind; an empty input leaves its setting out.
export interface SettingsField<Name extends string = string> {
  /** The setting's key in the account's settings. */
  name: Name;
  label: string;
  /** text and url: a string; integer: a whole number; boolean: a checkbox; list: comma-separated strings. */
  type: "text" | "url" | "integer" | "boolean" | "list";
  /** A line under the input. */
  help?: string;
  placeholder?: string;
}

/** The form input that carries a setting: apart from the form's own name, kind and secret. */
export function settingInputName(field: SettingsField): string {
  return `setting.${field.name}`;
}

/** What a setting's input shows: the checkbox's state, or its text ("" when unset). */
export function settingInputValue(field: SettingsField, settings: Record<string, unknown>): string | boolean {
  const value = settings[field.name];
  if (field.type === "boolean") return value === true;
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.join(", ");
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

export type SettingsFromForm = { ok: true; settings: Record<string, unknown> } | { ok: false; message: string };

/**
 * The settings a submitted form gives (`read`: an input's trimmed text, "" when absent), to be
 * checked by the kind's schema; refused only when a number input holds no whole number.
 */
export function settingsFromForm(fields: readonly SettingsField[], read: (input: string) => string): SettingsFromForm {
  const settings: Record<string, unknown> = {};
  for (const field of fields) {
    const text = read(settingInputName(field));
    if (text === "") continue;
    if (field.type === "boolean") settings[field.name] = true;
    else if (field.type === "list") {
      const items = text
        .split(/[,\n]/)
        .map((item) => item.trim())
        .filter(Boolean);
      if (items.length) settings[field.name] = items;
    } else if (field.type === "integer") {
      if (!/^-?\d+$/.test(text)) return { ok: false, message: `Settings: ${field.name}: must be a whole number.` };
      settings[field.name] = Number(text);
    } else settings[field.name] = text;
  }
  return { ok: true, settings };
}
