import escapeHtml from 'escape-html';

// The bank's pages: plain server-rendered HTML, one stylesheet from the bank's own origin, no
// script, nothing from anyone else. Every value is escaped here (escape-html), in the one place
// HTML is made.

/** A tagged template that escapes every interpolation unless it is already `Html`. */
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString() {
    return this.value;
  }
}
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    const part = Array.isArray(value)
      ? value.map((item) => (item instanceof Html ? item.value : escapeHtml(String(item)))).join('')
      : value instanceof Html
        ? value.value
        : escapeHtml(String(value ?? ''));
    out += part + (strings[index + 1] ?? '');
  });
  return new Html(out);
}

export function page(title: string, body: Html, brand = 'Sandbox Bank'): string {
  return `<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} - ${escapeHtml(brand)}</title>
<link rel="stylesheet" href="/assets/bank.css">
</head>
<body>
<header class="bar"><span class="brand">${escapeHtml(brand)}</span><span class="note">A practice bank: no real money moves</span></header>
<main>
${body.value}
</main>
</body>
</html>`;
}

/** An IBAN as banks print it, in groups of four. */
export const spacedIban = (iban: string) => iban.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');

/**
 * The approval form's end, the same on both faces: the customer's accounts to pay from (the first
 * chosen) and the two decisions.
 */
export const payFromAndDecide = (
  accounts: { id: string; label: string }[],
) => html`<fieldset><legend>Pay from</legend>
${accounts.map(
  (account, index) =>
    html`<div class="choice"><input type="radio" id="account-${account.id}" name="account" value="${account.id}"${
      index === 0 ? html` checked` : html``
    }><label for="account-${account.id}">${account.label}</label></div>`,
)}
</fieldset>
<div class="actions">
<button class="primary" type="submit" name="action" value="approve">Approve payment</button>
<button class="secondary" type="submit" name="action" value="reject">Reject</button>
</div>`;

export const STYLESHEET = `
*,*::before,*::after{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f3f5f7}
.bar{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:baseline;justify-content:space-between;padding:.75rem 1rem;background:#0b3d2e;color:#fff}
.brand{font-weight:700;font-size:1.125rem}
.note{font-size:.875rem}
main{max-width:32rem;margin:1.5rem auto;padding:1.25rem;background:#fff;border:1px solid #d0d7de;border-radius:.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=password]{width:100%;padding:.6rem;font:inherit;border:1px solid #57606a;border-radius:.375rem}
input:focus-visible,button:focus-visible{outline:3px solid #1f6feb;outline-offset:2px}
button{font:inherit;font-weight:600;padding:.7rem 1.1rem;border-radius:.375rem;border:1px solid transparent;cursor:pointer;min-height:44px}
.primary{background:#0b6e4f;color:#fff}
.secondary{background:#fff;color:#a40e26;border-color:#a40e26}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.25rem}
.actions button{flex:1 1 10rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0 0 1rem}
dt{font-weight:600}
dd{margin:0;overflow-wrap:anywhere}
fieldset{border:1px solid #d0d7de;border-radius:.375rem;margin:1rem 0 0;padding:.5rem .75rem}
legend{font-weight:600;padding:0 .25rem}
.choice{display:flex;gap:.5rem;align-items:flex-start;margin:.5rem 0}
.choice label{margin:0;font-weight:400}
.error{color:#a40e26;font-weight:600}
`;
