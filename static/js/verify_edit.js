/*
 * Verification task page (issue 13 item 4; 000 section 5.2): one edited sentence at a time,
 * with the reference (or the source), and two yes/no questions: same meaning? acceptable
 * <target language>? No way back.
 *
 * The page's HTML holds no sentence. This script fetches the current one from the item URL,
 * {position, context, text}, shows it with textContent only (never as HTML), and posts each
 * answer to the submit URL:
 *   {position, same_meaning, acceptable, client_started_at, client_duration_ms}
 * The answer's response carries the next sentence. The position is the only handle: nothing
 * says who edited the sentence. Vanilla JS, no build step, no cookies sent.
 *
 * Both questions must be answered before Next is enabled. Keyboard: Y (yes) or N (no), or the
 * first letters of the page language's words for yes and no (J/N in German), answers the
 * question in focus (else the first one unanswered) and moves on to the next question, then to
 * Next; the arrow keys change a question's answer; Enter goes on.
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
    context: document.getElementById("context-text"),
    text: document.getElementById("edited-text"),
    questions: [document.getElementById("same-meaning"), document.getElementById("acceptable")],
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
  var FIELDS = ["same_meaning", "acceptable"];
  var YES_KEYS = keys("y", words.labelYes, "n");
  var NO_KEYS = keys("n", words.labelNo, "y");

  var current = {
    position: null, // the sentence on screen
    answers: [null, null], // true (yes), false (no) or null, per question
    busy: false, // a request is in flight
    shownAt: 0, // performance.now() when it was shown
    startedAt: null, // the same moment as an ISO date, for the server
  };

  // The keys of an answer: its English letter and the first letter of the word on the page,
  // unless that is the other answer's English letter.
  function keys(letter, word, other) {
    var found = [letter];
    var first = (word || "").charAt(0).toLowerCase();
    if (first && first !== letter && first !== other) {
      found.push(first);
    }
    return found;
  }

  function radios(index) {
    return Array.prototype.slice.call(el.questions[index].querySelectorAll("input[type=radio]"));
  }

  function complete() {
    return current.answers[0] !== null && current.answers[1] !== null;
  }

  function updateNext() {
    el.next.disabled = current.position === null || !complete() || current.busy;
    el.hint.classList.toggle("is-answered", complete());
  }

  function setLocked(locked) {
    [0, 1].forEach(function (index) {
      radios(index).forEach(function (radio) {
        radio.disabled = locked;
      });
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

  // The focus goes to a question (its checked answer, else its first) or to Next.
  function focusQuestion(index) {
    if (index >= el.questions.length) {
      el.next.focus();
      return;
    }
    var choices = radios(index);
    var checked = choices.filter(function (radio) {
      return radio.checked;
    });
    (checked[0] || choices[0]).focus();
  }

  function finish() {
    // The task page shows the completion page once the assignment is submitted.
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
    current.answers = [null, null];
    current.busy = false;
    el.context.textContent = item.context;
    el.text.textContent = item.text;
    [0, 1].forEach(function (index) {
      radios(index).forEach(function (radio) {
        radio.checked = false;
      });
    });
    setLocked(false);
    showProgress(data.progress);
    root.dataset.position = String(item.position);
    updateNext();
    focusQuestion(0);
    current.shownAt = performance.now();
    current.startedAt = new Date().toISOString();
  }

  function answer(index, yes) {
    if (current.position === null || current.busy) {
      return;
    }
    radios(index).forEach(function (radio) {
      radio.checked = (radio.value === "yes") === yes;
    });
    current.answers[index] = yes;
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
      // Expired or returned: nothing more can be answered here.
      current.position = null;
      setLocked(true);
      showError(body.error, urls.restart);
    } else if (response.status === 409 || body.field === "position") {
      // The page is out of step (another tab?): say why, then show the current sentence.
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
    if (!complete()) {
      focusQuestion(current.answers[0] === null ? 0 : 1);
      return;
    }
    current.busy = true;
    setLocked(true);
    updateNext();
    var payload = {
      position: current.position,
      client_started_at: current.startedAt,
      client_duration_ms: Math.max(0, Math.round(performance.now() - current.shownAt)),
    };
    FIELDS.forEach(function (field, index) {
      payload[field] = current.answers[index];
    });
    call(urls.submit, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(payload),
    }).then(handle, function () {
      // Kept as they are: the same answers can be sent again (the server is idempotent).
      current.busy = false;
      setLocked(false);
      showError(words.labelNetworkError);
      updateNext();
    });
  }

  el.questions.forEach(function (question, index) {
    question.addEventListener("change", function (event) {
      answer(index, event.target.value === "yes");
    });
  });

  el.next.addEventListener("click", submit);

  document.addEventListener("keydown", function (event) {
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var tag = event.target && event.target.tagName;
    if (event.key === "Enter") {
      if (tag === "A" || tag === "BUTTON") {
        return; // their own Enter (a button's Enter is a click, which submits)
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
    var index = el.questions.findIndex(function (question) {
      return question.contains(event.target);
    });
    if (index < 0) {
      index = current.answers[0] === null ? 0 : current.answers[1] === null ? 1 : -1;
    }
    if (index < 0) {
      return;
    }
    event.preventDefault();
    answer(index, yes);
    focusQuestion(index + 1);
  });

  load(true);
})();
