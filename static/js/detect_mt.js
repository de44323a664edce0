/*
 * Detect-MT task page (issue 15 item 2; 000 section 5.1): one crowd translation at a time,
 * with its source sentence, and one yes/no question: does the translation look like it came
 * from an online machine translation system? No way back.
 *
 * The page's HTML holds no sentence. This script fetches the current one from the item URL,
 * {position, image, source, translation} (image: the URL of the source's picture, or null when
 * the campaign shows sources as text, then in source), shows the texts with textContent only
 * (never as HTML) and the picture as an <img> whose text alternative is "Source sentence", and
 * posts each answer to the submit URL:
 *   {position, machine, client_started_at, client_duration_ms}
 * The answer's response carries the next translation. The position is the only handle:
 * nothing says who translated. Vanilla JS, no build step, no cookies sent.
 *
 * Keyboard: Y (yes) or N (no), or the first letters of the page language's words for yes and
 * no, answers and moves the focus to Next; the arrow keys change the answer; Enter goes on.
 */
(function () {
  "use strict";

  var shared = window.evalsiteTask;
  var call = shared.call;
  var root = document.getElementById("task");
  if (!root) {
    return;
  }
  var words = root.dataset;
  var el = {
    progressText: document.getElementById("progress-text"),
    progressBar: document.getElementById("progress-bar"),
    progressFill: document.getElementById("progress-fill"),
    source: document.getElementById("source"),
    translation: document.getElementById("translation-text"),
    question: document.getElementById("machine"),
    hint: document.getElementById("hint"),
    error: document.getElementById("error"),
    next: document.getElementById("next"),
  };
  var urls = {
    item: root.dataset.itemUrl,
    submit: root.dataset.submitUrl,
    page: root.dataset.pageUrl,
    restart: root.dataset.restartUrl,
  };
  var YES_KEYS = keys("y", words.labelYes, "n");
  var NO_KEYS = keys("n", words.labelNo, "y");

  var current = {
    position: null, // the translation on screen
    answer: null, // true (looks machine made), false, or null
    busy: false, // a request is in flight
    shownAt: 0,
    startedAt: null,
  };

  function keys(letter, word, other) {
    var found = [letter];
    var first = (word || "").charAt(0).toLowerCase();
    if (first && first !== letter && first !== other) {
      found.push(first);
    }
    return found;
  }

  function radios() {
    return Array.prototype.slice.call(el.question.querySelectorAll("input[type=radio]"));
  }

  function updateNext() {
    el.next.disabled = current.position === null || current.answer === null || current.busy;
    el.hint.classList.toggle("is-answered", current.answer !== null);
  }

  function setLocked(locked) {
    radios().forEach(function (radio) {
      radio.disabled = locked;
    });
  }

  function showError(message, restartUrl) {
    shared.showError(el.error, message, restartUrl);
  }

  function showProgress(progress) {
    var total = progress.total;
    var number = Math.min(progress.done + 1, total);
    var text = words.progressFormat.replace("{n}", String(number)).replace("{total}", String(total));
    el.progressText.textContent = text;
    el.progressBar.setAttribute("aria-valuemax", String(total));
    el.progressBar.setAttribute("aria-valuenow", String(progress.done));
    el.progressBar.setAttribute("aria-valuetext", text);
    el.progressFill.style.width = (total ? (100 * progress.done) / total : 0) + "%";
  }

  function showSource(item) {
    while (el.source.firstChild) {
      el.source.removeChild(el.source.firstChild);
    }
    if (item.image) {
      var image = window.evalsiteTask.sentenceImage(item.image, "tr-image", words.labelSource);
      image.addEventListener("error", function () {
        showError(words.labelImageError);
      });
      el.source.appendChild(image);
    } else {
      el.source.textContent = item.source || "";
    }
  }

  function focusQuestion() {
    var choices = radios();
    var checked = choices.filter(function (radio) {
      return radio.checked;
    });
    (checked[0] || choices[0]).focus();
  }

  function finish() {
    window.location.replace(urls.page);
  }

  function show(data) {
    if (data.done || !data.next) {
      finish();
      return;
    }
    var item = data.next;
    shared.clearError(el.error);
    current.position = item.position;
    current.answer = null;
    current.busy = false;
    showSource(item);
    el.translation.textContent = item.translation;
    radios().forEach(function (radio) {
      radio.checked = false;
    });
    setLocked(false);
    showProgress(data.progress);
    root.dataset.position = String(item.position);
    updateNext();
    focusQuestion();
    current.shownAt = performance.now();
    current.startedAt = new Date().toISOString();
  }

  function answer(yes) {
    if (current.position === null || current.busy) {
      return;
    }
    radios().forEach(function (radio) {
      radio.checked = (radio.value === "yes") === yes;
    });
    current.answer = yes;
    updateNext();
  }

  function handle(response) {
    var body = response.body;
    if (body.ok) {
      show(body);
      return;
    }
    current.busy = false;
    if (response.status === 410) {
      current.position = null;
      setLocked(true);
      showError(body.error, urls.restart);
    } else if (response.status === 409 || body.field === "position") {
      showError(body.error);
      load(false);
    } else {
      setLocked(current.position === null);
      showError(body.error);
    }
    updateNext();
  }

  function load(clear) {
    call(urls.item, { headers: { Accept: "application/json" } }).then(
      function (response) {
        if (clear === false && response.body.ok) {
          var message = el.error.textContent;
          show(response.body);
          showError(message);
        } else {
          handle(response);
        }
      },
      function () {
        showError(words.labelLoadError);
      }
    );
  }

  function submit() {
    if (current.position === null || current.busy) {
      return;
    }
    if (current.answer === null) {
      focusQuestion();
      return;
    }
    current.busy = true;
    setLocked(true);
    updateNext();
    var payload = {
      position: current.position,
      machine: current.answer,
      client_started_at: current.startedAt,
      client_duration_ms: Math.max(0, Math.round(performance.now() - current.shownAt)),
    };
    call(urls.submit, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(payload),
    }).then(handle, function () {
      current.busy = false;
      setLocked(false);
      showError(words.labelNetworkError);
      updateNext();
    });
  }

  el.question.addEventListener("change", function (event) {
    answer(event.target.value === "yes");
  });

  el.next.addEventListener("click", submit);

  document.addEventListener("keydown", function (event) {
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var tag = event.target && event.target.tagName;
    if (event.key === "Enter") {
      if (tag === "A" || tag === "BUTTON") {
        return;
      }
      event.preventDefault();
      submit();
      return;
    }
    var key = (event.key || "").toLowerCase();
    var yes = YES_KEYS.indexOf(key) >= 0;
    if (!yes && NO_KEYS.indexOf(key) < 0) {
      return;
    }
    if (current.position === null || current.busy) {
      return;
    }
    event.preventDefault();
    answer(yes);
    el.next.focus();
  });

  load(true);
})();
