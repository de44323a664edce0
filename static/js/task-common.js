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

  // A sentence shown as a picture (the translation pages), drawn for this screen: the server wraps the sentence to the
  // page's width (in 40-pixel steps, so that a few sizes serve every screen) at the screen's
  // pixel density, and srcset tells the browser that density. Its letters are then the same
  // size on a phone as on a desktop; a picture drawn 720 pixels wide and scaled down to a
  // phone had letters of 9 or 10 pixels (judgments.kinds.translation.views).
  function sentenceImage(url, className, alt) {
    var root = document.getElementById("task");
    var width = root ? root.clientWidth - 16 : 720;
    width = Math.max(160, Math.min(720, Math.floor(width / 40) * 40));
    var scale = Math.max(1, Math.min(3, Math.round(window.devicePixelRatio || 1)));
    var sized = url + (url.indexOf("?") < 0 ? "?" : "&") + "width=" + width + "&scale=" + scale;
    var image = document.createElement("img");
    image.className = className;
    image.srcset = sized + " " + scale + "x";
    image.src = sized;
    image.alt = alt;
    image.draggable = false;
    image.decoding = "async";
    image.addEventListener("error", function () {
      image.classList.add("is-broken");
    });
    return image;
  }

  window.evalsiteTask = {
    call: call,
    showError: showError,
    clearError: clearError,
    sentenceImage: sentenceImage,
  };
})();
