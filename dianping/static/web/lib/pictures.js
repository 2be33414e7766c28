// Pictures: uploaded one by one as soon as they are chosen, with a preview and progress.

import { ApiError, clientId, explain } from "./api.js";
import { h, message } from "./dom.js";
import { fmt } from "./format.js";
import { session } from "./session.js";

// A picture upload (multipart, so not through api()), reporting progress from 0 to 1.
function uploadImage(file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/uploads");
    xhr.setRequestHeader("X-Client-Id", clientId());
    if (session.token) xhr.setRequestHeader("Authorization", `Bearer ${session.token}`);
    xhr.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
    xhr.onload = () => {
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch { /* not JSON: status says it */ }
      if (xhr.status === 201) { onProgress(1); resolve(data); } else reject(new ApiError(xhr.status, data));
    };
    xhr.onerror = () => reject(new ApiError(0, { detail: gettext("The upload failed: check your connection.") }));
    const form = new FormData();
    form.append("file", file);
    xhr.send(form);
  });
}

// A picker that uploads each chosen picture at once, with a preview and its progress.
// `pictures()` gives the uploaded URLs; `busy()` tells whether some are still on their way.
export function picturePicker({ id, label, multiple, max }) {
  const input = h("input", { id, type: "file", accept: "image/jpeg,image/png,image/webp", multiple: multiple || undefined });
  const list = h("ul", { class: "pictures", "aria-label": gettext("Chosen pictures") });
  const status = h("p", { class: "message", role: "status" });
  const uploaded = [];
  let pending = 0;
  input.addEventListener("change", () => {
    // A single picture is replaced by the next one chosen; photos add up to `max`.
    const files = Array.from(input.files).slice(0, multiple ? max - uploaded.length - pending : 1);
    input.value = "";
    for (const file of files) {
      const progress = h("progress", { max: "1", value: "0", "aria-label": fmt(gettext("Uploading %(name)s"), { name: file.name }) });
      const preview = h("img", { src: URL.createObjectURL(file), alt: file.name, width: "96", height: "96" });
      const item = h("li", {}, preview, progress);
      if (!multiple) list.replaceChildren();
      list.append(item);
      pending += 1;
      uploadImage(file, (share) => { progress.value = share; }).then((picture) => {
        if (!multiple) uploaded.length = 0;
        uploaded.push(picture.url);
        progress.replaceWith(h("span", { class: "muted" }, gettext("uploaded")));
      }, (error) => {
        item.remove();
        message(status, explain(error));
      }).finally(() => { pending -= 1; });
    }
  });
  return {
    nodes: [h("label", { for: id }, label), input, list, status],
    pictures: () => [...uploaded],
    busy: () => pending > 0,
  };
}
