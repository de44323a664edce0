// The admin's import job page (campaigns/admin/import_jobs.py): while the job runs, ask its
// status URL every second and move the progress bar; once it has ended, reload the page, which
// then shows the result or every problem. No inline script: the site's CSP is script-src 'self'.
(function () {
  "use strict";
  var box = document.getElementById("import-job-state");
  if (!box || box.getAttribute("data-ended") === "1") {
    return;
  }
  var url = box.getAttribute("data-status-url");
  var bar = box.querySelector("progress");
  var delay = 1000;

  function show(name, value) {
    var field = box.querySelector('[data-field="' + name + '"]');
    if (field) {
      field.textContent = value;
    }
  }

  function update(state) {
    show("status_label", state.status_label);
    show("phase", state.phase || "\u2014");
    show("done", state.done.toLocaleString());
    show("total", state.total.toLocaleString());
    show("message", state.message);
    if (state.percent === null) {
      bar.removeAttribute("value"); // an indeterminate bar until the size is known
      show("percent", "");
    } else {
      bar.value = state.percent;
      show("percent", state.percent + "%");
    }
  }

  function poll() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("status " + response.status);
        }
        return response.json();
      })
      .then(function (state) {
        update(state);
        if (state.ended) {
          window.location.reload();
          return;
        }
        delay = 1000;
        window.setTimeout(poll, delay);
      })
      .catch(function () {
        // A hiccup (a restarting server): try again, less often.
        delay = Math.min(delay * 2, 15000);
        window.setTimeout(poll, delay);
      });
  }

  window.setTimeout(poll, delay);
})();
