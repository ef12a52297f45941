// What the app's modules share: finding and making elements, formatting values, the
// status line, and buttons that are busy while their request runs.
import { DatahubError } from "./datahub-client.js";

export const $ = (id) => document.getElementById(id);
let sessionEnded = false;

export function say(message, isError = false) {
  $("status").textContent = message;
  $("status").classList.toggle("error", isError);
}

export function fail(error) {
  // A DatahubError says the service's detail; any other Error its message.
  say(`Error: ${error instanceof DatahubError || error instanceof Error ? error.message : error}`, true);
}

/** The session ended (a refused refresh): the failing request's error need not be shown. */
export function endSession() {
  sessionEnded = true;
}

/** Run `work` with `button` (if any) disabled meanwhile; an error is said in the status. */
export async function busy(button, work) {
  if (button) button.disabled = true;
  sessionEnded = false;
  try {
    await work();
  } catch (error) {
    if (!sessionEnded) fail(error);
  } finally {
    if (button) button.disabled = false;
  }
}

export function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.appendChild(td);
  return td;
}

export function button(text, className, onClick) {
  const element = document.createElement("button");
  element.type = "button";
  element.className = className;
  element.textContent = text;
  element.addEventListener("click", () => busy(element, onClick));
  return element;
}

export function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function when(isoDate) {
  return new Date(isoDate).toLocaleString();
}

export function valueText(value) {
  if (value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** A row of values; a null is an empty cell marked "null". */
export function valuesRow(values) {
  const row = document.createElement("tr");
  for (const value of values) {
    const td = cell(row, valueText(value));
    if (value === null) td.classList.add("null");
  }
  return row;
}

export function headerRow(names) {
  const row = document.createElement("tr");
  for (const name of names) {
    const th = document.createElement("th");
    th.textContent = name;
    row.appendChild(th);
  }
  return row;
}

/** For a view whose answers may arrive out of order: `next()` gives the newest request a
 *  ticket, a function that tells whether it is still the newest; `drop()` outdates all. */
export function lastOnly() {
  let ticket = 0;
  return {
    next() {
      ticket += 1;
      const mine = ticket;
      return () => mine === ticket;
    },
    drop() {
      ticket += 1;
    },
  };
}
