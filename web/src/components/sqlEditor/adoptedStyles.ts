/**
 * CodeMirror's styles under the service's Content-Security-Policy (style-src 'self', no
 * nonce). CodeMirror puts its generated CSS (style-mod's StyleModule.mount) into a <style>
 * element when the root is a document (constructable stylesheets only inside shadow
 * roots), and the policy blocks that element: the editor then has no layout at all. Here a
 * document's modules go into one constructable stylesheet adopted by the document
 * (`document.adoptedStyleSheets`), which style-src does not govern; the rule order is
 * style-mod's (later modules after earlier ones). Elsewhere (jsdom, shadow roots, a nonce)
 * style-mod's own mount is used.
 */
import { StyleModule } from 'style-mod';

interface DocumentSheet {
  sheet: CSSStyleSheet;
  modules: StyleModule[];
}

const sheets = new WeakMap<Document, DocumentSheet>();
let installed = false;

function canAdopt(root: Document | ShadowRoot | DocumentOrShadowRoot): root is Document {
  return 'head' in root && Array.isArray(root.adoptedStyleSheets) && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype;
}

/** Puts `modules` in order into the document's list; true when the list changed. */
function order(list: StyleModule[], modules: StyleModule[]): boolean {
  let at = 0;
  let changed = false;
  for (const module of modules) {
    let index = list.indexOf(module);
    if (index > -1 && index < at) {
      list.splice(index, 1);
      at -= 1;
      index = -1;
    }
    if (index === -1) {
      list.splice(at, 0, module);
      at += 1;
      changed = true;
    } else {
      at = index + 1;
    }
  }
  return changed;
}

export function adoptCodeMirrorStyles(): void {
  if (installed) return;
  installed = true;
  const mount = StyleModule.mount.bind(StyleModule);
  StyleModule.mount = (root, modules, options) => {
    if (options?.nonce || !canAdopt(root)) return mount(root, modules, options);
    let entry = sheets.get(root);
    if (!entry) {
      entry = { sheet: new CSSStyleSheet(), modules: [] };
      sheets.set(root, entry);
    }
    if (order(entry.modules, Array.isArray(modules) ? modules : [modules])) {
      entry.sheet.replaceSync(entry.modules.map((module) => module.getRules()).join('\n'));
    }
    if (!root.adoptedStyleSheets.includes(entry.sheet)) {
      root.adoptedStyleSheets = [entry.sheet, ...root.adoptedStyleSheets];
    }
  };
}
