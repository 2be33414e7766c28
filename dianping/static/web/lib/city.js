// The city the reader reads (decision 397): chosen in the header, remembered in
// localStorage, and sent as `city` by every per-city request (shop lists, search, the
// flash sales); the default city until the reader chooses one.

import { get } from "./api.js";
import { h } from "./dom.js";

const KEY = "city";
let listing = null; // GET cities, once per page load

export function cities() {
  if (!listing) listing = get("cities").catch((error) => { listing = null; throw error; });
  return listing;
}

// The chosen city, if it still exists; else the default one.
export async function currentCity() {
  const all = await cities();
  const code = localStorage.getItem(KEY);
  return all.find((city) => city.code === code) || all.find((city) => city.default) || all[0];
}

// `query` (URLSearchParams, or an object of parameters) with the chosen city's `city` set.
export async function inCity(query) {
  const params = new URLSearchParams(query);
  const city = await currentCity();
  if (city) params.set("city", city.code);
  return params;
}

// The header's chooser: each city by its name in the page's language; a choice is
// remembered and the page drawn again for it.
export async function renderCityChooser(redraw) {
  const select = document.getElementById("city-choice");
  const [all, chosen] = await Promise.all([cities(), currentCity()]);
  select.replaceChildren(...all.map((city) => h("option", { value: city.code, selected: city === chosen }, city.name)));
  select.onchange = () => {
    localStorage.setItem(KEY, select.value);
    redraw();
  };
  select.hidden = false;
}
