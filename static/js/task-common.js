/*
 * What every task page's script shares: the JSON calls to the task's endpoints and the error
 * box. Loaded before the page's own script (assess.js, rank.js), as window.evalsiteTask.
 * Vanilla JS, no build step; requests send no cookies (the assignment token in the URL is the
 * only credential, so the pages work inside MTurk's iframe). Its words are the task element's
 * data-label-* attributes (translated on the server, like every word of the page).
 */
(function () {
  "use strict";

  var TIMEOUT_MS = 30000;

  // The page's shared words (task_base.html).
  function word(name) {
    var root = document.getElementById("task");
    return root ? root.dataset[name] || "" : "";
  }

  // fetch, then {status, body}; the body of a non-JSON answer becomes a readable error.
  function call(url, options) {
    options.credentials = "omit";
    options.cache = "no-store";
    if (window.AbortSignal && AbortSignal.timeout) {
      options.signal = AbortSignal.timeout(TIMEOUT_MS);
    }
    return fetch(url, options).then(function (response) {
      return response.json().then(
        function (body) {
          return { status: response.status, body: body };
        },
        function () {
          return { status: response.status, body: { ok: false, error: word("labelUnreadable") } };
        }
      );
    });
  }

  // Show a message in the page's error box, with a "Get a task" link when the task is over.
  function showError(box, message, restartUrl) {
    box.textContent = message;
    if (restartUrl) {
      var link = document.createElement("a");
      link.href = restartUrl;
      link.className = "button-primary";
      link.textContent = word("labelRestart");
      box.appendChild(document.createTextNode(" "));
      box.appendChild(link);
    }
    box.hidden = false;
  }

  function clearError(box) {
    box.hidden = true;
    box.textContent = "";
  }

  window.evalsiteTask = { call: call, showError: showError, clearError: clearError };
})();
