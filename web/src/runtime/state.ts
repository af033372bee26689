// The page's one state: the slide shown and every widget's settings, saved to and restored from
// the URL hash so that any view can be shared as a link. One table of fields (FIELDS, each widget's
// rows in the registry) drives decoding, encoding and the widgets' attributes alike; nothing lists
// the fields again. DOM-free; decoding never throws and clamps whatever it is given.

import { WIDGETS } from './registry';

interface FieldBase {
  /** key in the URL hash, unique over the page */
  key: string;
  /** the custom element and attribute this field sets */
  element: string;
  attribute: string;
  /** what its control is called on the page (default: the attribute's name) */
  label?: string;
}
export interface IntField extends FieldBase { type: 'int'; min: number; max: number; default: number; multipleOf?: number }
export interface NumberField extends FieldBase { type: 'number'; min: number; max: number; default: number }
export interface BoolField extends FieldBase { type: 'bool'; default: boolean }
export interface EnumField extends FieldBase { type: 'enum'; values: readonly string[]; default: string }
export interface TextField extends FieldBase { type: 'text'; maxLength: number; default: string }
export type Field = IntField | NumberField | BoolField | EnumField | TextField;
export type Value = number | boolean | string;
/** a field as its widget's registry entry writes it (the entry gives the element) */
export type FieldRow = Field extends infer F ? (F extends Field ? Omit<F, 'element'> : never) : never;

/** Every setting a reader can change, with its type, limits and default: each widget's fields in
 * the registry, with the widget's tag. */
export const FIELDS: readonly Field[] = WIDGETS.flatMap(({ tag, fields }) => fields.map((field) => ({ ...field, element: tag }) as Field));

/** one field per URL key: a row several widgets share (the model in use) is one setting of the page */
const PAGE_FIELDS: readonly Field[] = FIELDS.filter((field, i) => FIELDS.findIndex((f) => f.key === field.key) === i);

export function fieldsOf(element: string): Field[] {
  return FIELDS.filter((f) => f.element === element);
}

export function fieldFor(element: string, attribute: string): Field | undefined {
  return FIELDS.find((f) => f.element === element && f.attribute === attribute);
}

/** a numeric setting's range and step, for its slider */
export function limitsOf(element: string, attribute: string): { min: number; max: number; step: number } {
  const field = fieldFor(element, attribute);
  if (!field || (field.type !== 'int' && field.type !== 'number')) throw new Error(`${element} has no numeric setting "${attribute}"`);
  return { min: field.min, max: field.max, step: field.type === 'int' ? field.multipleOf ?? 1 : (field.max - field.min) / 100 };
}

/** text (from a URL or an attribute; null = absent) → the field's value, clamped; the default
 * when absent or unreadable. A boolean attribute that is present but empty means true. */
export function parseValue(field: Field, text: string | null): Value {
  if (text === null) return field.default;
  switch (field.type) {
    case 'bool':
      if (text === '' || text === '1' || text === 'true') return true;
      if (text === '0' || text === 'false') return false;
      return field.default;
    case 'enum':
      return field.values.includes(text) ? text : field.default;
    case 'text':
      return [...text].slice(0, field.maxLength).join('');
    case 'int':
    case 'number': {
      const value = text.trim() === '' ? NaN : Number(text);
      if (!Number.isFinite(value)) return field.default;
      const clamped = Math.min(field.max, Math.max(field.min, value));
      if (field.type === 'number') return clamped;
      const unit = field.multipleOf ?? 1;
      return Math.min(field.max, Math.max(field.min, unit * Math.round(clamped / unit)));
    }
  }
}

/** the field's value as text for a URL or an attribute */
export function formatValue(field: Field, value: Value): string {
  if (field.type === 'bool') return value ? '1' : '0';
  return String(value);
}

export interface PageState {
  /** id of the slide shown ('' = the first) */
  slide: string;
  /** settings that differ from their defaults, by URL key */
  values: Map<string, Value>;
}

/** "#worked-example&causal=1&q=2" → state (unknown keys ignored, values clamped) */
export function decodeHash(hash: string): PageState {
  const text = hash.replace(/^#/, '');
  const [first = '', ...rest] = text.split('&');
  const slide = first.includes('=') ? '' : safeDecode(first);
  const params = new URLSearchParams((first.includes('=') ? [first, ...rest] : rest).join('&'));
  const values = new Map<string, Value>();
  for (const field of PAGE_FIELDS) {
    if (!params.has(field.key)) continue;
    const value = parseValue(field, params.get(field.key));
    if (value !== field.default) values.set(field.key, value);
  }
  return { slide, values };
}

/** state → "#slide&key=value…", listing only settings that differ from their defaults */
export function encodeHash(state: PageState): string {
  const params = new URLSearchParams();
  for (const field of PAGE_FIELDS) {
    const value = state.values.get(field.key);
    if (value !== undefined && value !== field.default) params.set(field.key, formatValue(field, value));
  }
  const query = params.toString();
  const slide = encodeURIComponent(state.slide);
  return `#${slide}${query ? `&${query}` : ''}`;
}

/** the state with one setting changed (a default value is dropped from the state) */
export function withValue(state: PageState, field: Field, value: Value): PageState {
  const values = new Map(state.values);
  if (value === field.default) values.delete(field.key);
  else values.set(field.key, value);
  return { ...state, values };
}

/** the state a link to the shown slide carries: the slide and the settings of its widgets (their
 * tags) only, so that a link does not carry what the reader changed on other slides */
export function linkTo(state: PageState, widgets: readonly string[]): PageState {
  const keys = new Set(FIELDS.filter((f) => widgets.includes(f.element)).map((f) => f.key));
  return { slide: state.slide, values: new Map([...state.values].filter(([key]) => keys.has(key))) };
}

/** The page state once a link is followed (back, forward, a link typed or clicked): its settings,
 * the settings of its slide's widgets it does not give back at their defaults, and every other
 * slide's as they were. */
export function followLink(state: PageState, link: PageState, widgets: readonly string[]): PageState {
  const keys = new Set(FIELDS.filter((f) => widgets.includes(f.element)).map((f) => f.key));
  const values = new Map([...state.values].filter(([key]) => !keys.has(key)));
  for (const [key, value] of link.values) values.set(key, value);
  return { slide: link.slide, values };
}

/** the attributes a widget should carry for this state: [name, text or null to remove] */
export function attributesFor(element: string, state: PageState): [string, string | null][] {
  return fieldsOf(element).map((field) => {
    const value = state.values.get(field.key);
    return [field.attribute, value === undefined ? null : formatValue(field, value)];
  });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}
