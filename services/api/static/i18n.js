// The table's words in the page's language. The server puts the catalogue of the chosen
// language into the page (a JSON block read from the language's table.po); English is the
// message ids themselves. Plural forms are picked by the language's CLDR category
// (Intl.PluralRules), in CLDR's order, the order Babel writes a catalogue's forms in.
// Nothing here is evaluated: the page's Content-Security-Policy allows no eval.
"use strict";

const I18N = (() => {
  const block = document.getElementById("i18n");
  const strings = block ? JSON.parse(block.textContent) : {};
  const meta = strings[""] || {};
  const lang = meta.lang || document.documentElement.lang || "en";
  const CLDR_ORDER = ["zero", "one", "two", "few", "many", "other"];
  const rules = new Intl.PluralRules(lang);
  const categories = rules.resolvedOptions().pluralCategories
    .slice().sort((a, b) => CLDR_ORDER.indexOf(a) - CLDR_ORDER.indexOf(b));
  return { strings, lang, rules, categories };
})();

// Fills {placeholders}; a name is wrapped in Unicode isolates (FSI … PDI) so that a name in
// one script never reorders the sentence around it in another.
function fill(text, params = {}) {
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
}

function _(message, params) {
  const text = I18N.strings[message];
  return fill(typeof text === "string" && text ? text : message, params);
}

function ngettext(singular, plural, count, params = {}) {
  const forms = I18N.strings[singular];
  const values = { count: String(count), ...params };
  if (Array.isArray(forms) && forms.length) {
    const index = I18N.categories.indexOf(I18N.rules.select(count));
    return fill(forms[Math.min(Math.max(index, 0), forms.length - 1)] || plural, values);
  }
  return fill(count === 1 ? singular : plural, values);
}

// A player's name inside a sentence: isolated, so that it reads the same in any direction.
const isolate = (name) => `\u2068${name}\u2069`;

// The picker: the choice is remembered in a cookie the server reads before Accept-Language.
function watchLanguagePicker() {
  const picker = document.getElementById("lang-picker");
  if (!picker) return;
  picker.addEventListener("change", () => {
    document.cookie = `lang=${encodeURIComponent(picker.value)}; path=/; max-age=31536000; SameSite=Lax`;
    const params = new URLSearchParams(location.search);
    params.delete("lang");
    const query = params.toString();
    location.assign(`${location.pathname}${query ? `?${query}` : ""}`);
  });
}
