// Shop claims: "Claim this shop" on a shop's page for a signed-in user who may claim it
// (GET /api/shops/{id}/claim-state), its form (evidence and an optional picture, uploaded
// as a note's are), and the user's claims with their status in the merchant area.

import { act } from "../lib/act.js";
import { ApiError, api, get } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { fmt, named, when } from "../lib/format.js";
import { field, withFieldErrors } from "../lib/forms.js";
import { picturePicker } from "../lib/pictures.js";
import { session } from "../lib/session.js";

const STATUSES = {
  pending: gettext("Waiting for an operator"),
  approved: gettext("Approved"),
  rejected: gettext("Not approved"),
};

function pendingNote(claim) {
  return h("p", { class: "message ok", role: "status", "data-claim": "pending" },
    fmt(gettext("Your claim of this shop, sent %(time)s, is waiting for an operator's decision."), { time: when(claim.created_at) }),
    " ", h("a", { href: "#/merchant" }, gettext("My shops")));
}

function claimForm(shopId, done) {
  const evidence = h("textarea", { name: "evidence", maxlength: "1000", rows: "4", required: true });
  const picture = picturePicker({ id: `claim-picture-${shopId}`, label: gettext("A picture (optional): your business licence or the shop front"), multiple: false, max: 1 });
  const status = h("p", { class: "message", role: "status" });
  const send = h("button", { type: "submit" }, gettext("Send the claim"));
  const form = h("form", { class: "claim-form" },
    field("evidence", gettext("How can an operator check that you run this shop?"), evidence,
      gettext("Your role, and a way to check it: a licence number, a phone on the shop's sign.")),
    ...picture.nodes,
    h("p", {}, send), status);
  form.addEventListener("submit", act(send, status, withFieldErrors(form, status, async () => {
    if (picture.busy()) throw new ApiError(0, { detail: gettext("Wait until your picture is uploaded.") });
    const [url] = picture.pictures();
    const body = { shop_id: Number(shopId), evidence: evidence.value.trim() };
    if (url) body.picture = url;
    try {
      done(await api("POST", "merchant/claims", body));
    } catch (error) {
      // Someone's claim was approved, or mine was sent from elsewhere, since the page loaded.
      if (error instanceof ApiError && ["shop_has_owner", "claim_pending"].includes(error.code)) {
        done(null, error);
        return true;
      }
      throw error;
    }
    return true;
  })));
  return form;
}

// The claim section at the foot of a shop's page; empty for anonymous readers and for a
// shop with someone else as its owner.
export function claimSection(shopId) {
  const section = h("section", { class: "claim", "aria-label": gettext("Run this shop?"), hidden: true });
  if (!session.token) return section;

  // `notice`: why a claim just sent was refused (the state read again says the rest).
  function render(state, notice) {
    const parts = notice ? [notice] : [];
    if (state.role) {
      parts.push(h("p", {}, h("a", { href: `#/merchant?shop=${shopId}` },
        state.role === "owner" ? gettext("You own this shop: manage it in My shops") : gettext("You work at this shop: see it in My shops"))));
    } else if (state.claim && state.claim.status === "pending") {
      parts.push(pendingNote(state.claim));
    } else if (state.can_claim) {
      if (state.claim && state.claim.status === "rejected") {
        parts.push(h("p", { class: "message", "data-claim": "rejected" },
          fmt(gettext("Your earlier claim was not approved: %(reason)s"), { reason: state.claim.reason })));
      }
      const open = h("button", { type: "button", class: "secondary" }, gettext("Claim this shop"));
      open.addEventListener("click", () => {
        open.replaceWith(claimForm(shopId, (claim, refused) => {
          if (claim) { render({ role: null, claim, can_claim: false }); return; }
          const note = h("p", { class: "message", role: "status", "data-claim": "refused" });
          message(note, refused.message);
          get(`shops/${shopId}/claim-state`).then((state) => render(state, note), () => render({}, note));
        }));
        section.querySelector("textarea").focus();
      });
      parts.push(h("p", { class: "muted" }, gettext("Do you run this shop? Claim it to answer reviews, keep its hours and publish offers.")), open);
    }
    section.replaceChildren(h("h2", {}, gettext("Run this shop?")), ...parts);
    section.hidden = !parts.length;
  }

  get(`shops/${shopId}/claim-state`).then(render, () => null); // the page works without it
  return section;
}

// The user's claims, newest first, with their status (and a rejection's reason).
export async function claimsList() {
  const list = h("ul", { class: "claims" });
  const status = h("p", { class: "message", role: "status" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, gettext("More"));
  let page = 1;
  async function load() {
    const data = await get(`merchant/claims?page=${page}`);
    list.append(...data.results.map((claim) => h("li", { class: "card", "data-claim": String(claim.id) },
      h("a", { href: `#/shops/${claim.shop.id}` }, claim.shop.name), " ",
      h("span", { class: `state ${claim.status}` }, named(STATUSES, claim.status)),
      h("p", { class: "muted" }, fmt(gettext("Sent %(time)s"), { time: when(claim.created_at) }),
        claim.decided_at ? fmt(gettext(" · decided %(time)s"), { time: when(claim.decided_at) }) : ""),
      claim.status === "rejected" && claim.reason ? h("p", {}, fmt(gettext("Reason: %(reason)s"), { reason: claim.reason })) : null)));
    page += 1;
    more.hidden = !data.next;
    return data.count;
  }
  more.addEventListener("click", act(more, status, load));
  const count = await load();
  return { count, nodes: [h("h2", {}, gettext("My shop claims")),
    count ? list : h("p", { class: "muted" }, gettext("No claims. To run a shop, open its page and choose Claim this shop.")),
    more, status] };
}
