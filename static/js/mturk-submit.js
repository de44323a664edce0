/*
 * The completion page of an MTurk assignment: post the form (assignmentId and one answer
 * field) to MTurk's externalSubmit, which is how MTurk learns the HIT was submitted.
 *
 * Sent by itself once per assignment in this tab: a page shown again (the back button, a
 * reload) does not post it a second time, and the button stays there for the worker to send
 * it by hand if the automatic post did not get through. A second press while the post is
 * under way is ignored. Vanilla JS, no build step.
 */
(function () {
  "use strict";

  var form = document.getElementById("mturk-submit");
  if (!form) {
    return;
  }
  var button = document.getElementById("mturk-submit-button");
  var status = document.getElementById("mturk-submit-status");
  var assignmentId = form.elements.assignmentId.value;
  var KEY = "evalsite.mturk-submitted." + assignmentId;
  var sending = false;
  // The page's words (done.html's data attributes, in the campaign's language).
  var SENDING = status.dataset.labelSending;
  var PRESS_IF_NOT_SENT = status.dataset.labelPressIfNotSent;

  // sessionStorage may be refused inside a third-party frame; then only this page remembers.
  function alreadySent() {
    try {
      return window.sessionStorage.getItem(KEY) === "1";
    } catch (error) {
      return false;
    }
  }

  function rememberSent() {
    try {
      window.sessionStorage.setItem(KEY, "1");
    } catch (error) {
      // Nothing to do: the automatic post may then happen again after a reload, which MTurk
      // ignores for an assignment it already has.
    }
  }

  function send() {
    if (sending) {
      return;
    }
    sending = true;
    rememberSent();
    button.disabled = true;
    status.textContent = SENDING;
    form.submit();
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    send();
  });

  // Back from MTurk's page (bfcache): the button works again.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      sending = false;
      button.disabled = false;
      status.textContent = PRESS_IF_NOT_SENT;
    }
  });

  if (alreadySent()) {
    status.textContent = PRESS_IF_NOT_SENT;
  } else {
    send();
  }
})();
