/*
 * Reading comprehension, voting on questions (issue 14 stage 2; 000 section 5.3): the human
 * translation of an article and the questions written about it; per question, good or not,
 * and the other questions it asks the same thing as.
 *
 * The page's HTML holds neither: this script fetches them from the item URL,
 *   {page, article: [paragraph, ...], questions: [{position, text}, ...]}
 * shows them with textContent only, and sends the whole page at once to the submit URL:
 *   {page, votes: {"<position>": {good, redundant_with: [positions]}}, client_started_at,
 *    client_duration_ms}
 * once every question has a yes or a no. Choices are kept in the tab's session storage until
 * they are sent: a reload finds them.
 *
 * Keyboard: Y or N (or the first letter of the page's words for yes and no) says whether the
 * question in focus (else the first one without an answer) is good and moves on to the next
 * question, then to the Send button; a number key marks the question in focus as asking the
 * same thing as that question (again: unmarks it); the arrow keys change a yes or no; Tab
 * moves between the choices; Enter sends.
 */
(function () {
  "use strict";

  var rc = window.evalsiteRC;
  var shared = window.evalsiteTask;
  var root = document.getElementById("task");
  if (!root) {
    return;
  }
  var words = root.dataset;
  var el = {
    article: document.getElementById("article"),
    items: document.getElementById("questions"),
    hint: document.getElementById("hint"),
    error: document.getElementById("error"),
    send: document.getElementById("next"),
  };
  var urls = {
    item: words.itemUrl,
    submit: words.submitUrl,
    page: words.pageUrl,
    restart: words.restartUrl,
  };
  var YES_KEYS = rc.keysFor("y", words.labelYes, ["n"]);
  var NO_KEYS = rc.keysFor("n", words.labelNo, YES_KEYS);

  var state = {
    page: null,
    items: [], // {position, section, radios: [yes, no], checks: [checkbox], message}
    busy: false,
    over: false,
    shownAt: 0,
    startedAt: null,
  };

  function good(item) {
    if (item.radios[0].checked) {
      return true;
    }
    return item.radios[1].checked ? false : null;
  }

  function same(item) {
    return item.checks
      .filter(function (box) {
        return box.checked;
      })
      .map(function (box) {
        return Number(box.value);
      });
  }

  function update() {
    var done = state.items.filter(function (item) {
      return good(item) !== null;
    }).length;
    var total = state.items.length;
    rc.showProgress(rc.format(words.labelProgress, { done: done, total: total }), done, total);
    el.send.disabled = state.busy || state.over || state.page === null;
    el.hint.classList.toggle("is-answered", total > 0 && done === total);
  }

  function keep() {
    var votes = {};
    state.items.forEach(function (item) {
      votes[item.position] = { good: good(item), same: same(item) };
    });
    rc.saveDraft({ page: state.page, votes: votes });
  }

  function say(item, message) {
    item.message.textContent = message;
    item.message.hidden = !message;
  }

  function setLocked(locked) {
    state.items.forEach(function (item) {
      item.radios.concat(item.checks).forEach(function (input) {
        input.disabled = locked;
      });
    });
    update();
  }

  function choice(className, type, name, value, label) {
    var wrapper = rc.make("label", className);
    var input = document.createElement("input");
    input.type = type;
    input.name = name;
    input.value = value;
    wrapper.appendChild(input);
    wrapper.appendChild(rc.make("span", null, label));
    return { wrapper: wrapper, input: input };
  }

  function build(data, positions) {
    var n = data.position;
    var section = rc.make("section", "rc-item");
    section.id = "item-" + n;
    var title = rc.make("h3", "rc-item-title", rc.format(words.labelQuestion, { n: n }));
    title.id = "question-" + n + "-title";
    section.setAttribute("aria-labelledby", title.id);
    section.appendChild(title);
    section.appendChild(rc.text("p", "rc-question-text", data.text));

    var goodGroup = rc.make("fieldset", "rc-group rc-good");
    goodGroup.dataset.field = "votes." + n + ".good";
    goodGroup.appendChild(rc.make("legend", null, words.labelGoodQuestion));
    var choices = rc.make("div", "rc-choices");
    var yes = choice("rc-choice", "radio", "good-" + n, "yes", words.labelYes);
    var no = choice("rc-choice", "radio", "good-" + n, "no", words.labelNo);
    choices.appendChild(yes.wrapper);
    choices.appendChild(no.wrapper);
    goodGroup.appendChild(choices);
    section.appendChild(goodGroup);

    var checks = [];
    var others = positions.filter(function (other) {
      return other !== n;
    });
    if (others.length) {
      var sameGroup = rc.make("fieldset", "rc-group rc-same");
      sameGroup.dataset.field = "votes." + n + ".redundant_with";
      sameGroup.appendChild(rc.make("legend", null, words.labelSameAs));
      var boxes = rc.make("div", "rc-checks");
      others.forEach(function (other) {
        var label = rc.format(words.labelQuestion, { n: other });
        var box = choice("rc-check", "checkbox", "same-" + n, String(other), label);
        boxes.appendChild(box.wrapper);
        checks.push(box.input);
      });
      sameGroup.appendChild(boxes);
      section.appendChild(sameGroup);
    }
    var message = rc.make("p", "error rc-box-message");
    message.setAttribute("role", "alert");
    message.hidden = true;
    section.appendChild(message);
    return {
      position: n,
      section: section,
      radios: [yes.input, no.input],
      checks: checks,
      message: message,
    };
  }

  function render(next) {
    rc.showArticle(el.article, next.article);
    rc.clear(el.items);
    var draft = rc.loadDraft();
    var votes = draft && draft.page === next.page ? draft.votes || {} : {};
    var positions = next.questions.map(function (data) {
      return data.position;
    });
    state.page = next.page;
    state.items = next.questions.map(function (data) {
      var item = build(data, positions);
      el.items.appendChild(item.section);
      var kept = votes[data.position];
      if (kept && typeof kept === "object") {
        item.radios[0].checked = kept.good === true;
        item.radios[1].checked = kept.good === false;
        var marked = Array.isArray(kept.same) ? kept.same : [];
        item.checks.forEach(function (box) {
          box.checked = marked.indexOf(Number(box.value)) >= 0;
        });
      }
      item.section.addEventListener("change", function () {
        if (good(item) !== null) {
          say(item, "");
        }
        keep();
        update();
      });
      return item;
    });
    state.busy = false;
    state.shownAt = performance.now();
    state.startedAt = new Date().toISOString();
    update();
    var first = firstUnanswered();
    if (first) {
      focusItem(first, false);
    }
  }

  function firstUnanswered() {
    return state.items.filter(function (item) {
      return good(item) === null;
    })[0];
  }

  // The focus goes to a question's yes or no (the one chosen, else yes).
  function focusItem(item, scroll) {
    var target = item.radios[1].checked ? item.radios[1] : item.radios[0];
    target.focus({ preventScroll: !scroll });
    if (scroll) {
      item.section.scrollIntoView({ block: "nearest" });
    }
  }

  function itemOf(node) {
    return state.items.filter(function (item) {
      return item.section.contains(node);
    })[0];
  }

  function finish() {
    window.location.replace(urls.page);
  }

  function show(body) {
    if (body.done || !body.next) {
      rc.dropDraft();
      finish();
      return;
    }
    render(body.next);
  }

  function load() {
    rc.get(urls.item).then(
      function (answer) {
        if (answer.body.ok) {
          show(answer.body);
        } else {
          fail(answer);
        }
      },
      function () {
        shared.showError(el.error, words.labelLoadError);
      }
    );
  }

  function fail(answer) {
    state.busy = false;
    var outcome = rc.refused(answer, urls, function (target, message) {
      var item = itemOf(target);
      say(item, message);
      focusItem(item, true);
    });
    if (outcome === "over") {
      state.over = true;
      setLocked(true);
    } else if (outcome === "reload") {
      load();
    } else {
      setLocked(false);
    }
  }

  function send() {
    if (state.busy || state.over || state.page === null) {
      return;
    }
    shared.clearError(el.error);
    var missing = state.items.filter(function (item) {
      return good(item) === null;
    });
    if (missing.length) {
      missing.forEach(function (item) {
        say(item, words.labelHint);
      });
      focusItem(missing[0], true);
      return;
    }
    var votes = {};
    state.items.forEach(function (item) {
      votes[String(item.position)] = { good: good(item), redundant_with: same(item) };
    });
    var payload = {
      page: state.page,
      votes: votes,
      client_started_at: state.startedAt,
      client_duration_ms: Math.max(0, Math.round(performance.now() - state.shownAt)),
    };
    state.busy = true;
    setLocked(true);
    rc.post(urls.submit, payload).then(
      function (answer) {
        if (answer.body.ok) {
          show(answer.body);
        } else {
          fail(answer);
        }
      },
      function () {
        // Kept as they are (and in the draft): the same votes can be sent again.
        state.busy = false;
        setLocked(false);
        shared.showError(el.error, words.labelNetworkError);
      }
    );
  }

  el.send.addEventListener("click", send);

  document.addEventListener("keydown", function (event) {
    if (event.isComposing || event.altKey) {
      return;
    }
    var tag = event.target && event.target.tagName;
    if (event.key === "Enter") {
      if (tag === "A" || (tag === "BUTTON" && !(event.ctrlKey || event.metaKey))) {
        return; // their own Enter (the Send button's Enter is its click)
      }
      event.preventDefault();
      send();
      return;
    }
    if (event.ctrlKey || event.metaKey || state.busy || state.over || state.page === null) {
      return;
    }
    var key = (event.key || "").toLowerCase();
    var item = itemOf(event.target);
    if (/^[1-9]$/.test(key)) {
      var box = item
        ? item.checks.filter(function (check) {
            return check.value === key;
          })[0]
        : null;
      if (box) {
        event.preventDefault();
        box.checked = !box.checked;
        box.dispatchEvent(new Event("change", { bubbles: true }));
      }
      return;
    }
    var yes = YES_KEYS.indexOf(key) >= 0;
    if (!yes && NO_KEYS.indexOf(key) < 0) {
      return;
    }
    item = item || firstUnanswered();
    if (!item) {
      return;
    }
    event.preventDefault();
    var radio = item.radios[yes ? 0 : 1];
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    var index = state.items.indexOf(item);
    if (index + 1 < state.items.length) {
      focusItem(state.items[index + 1], true);
    } else {
      el.send.focus();
    }
  });

  load();
})();
