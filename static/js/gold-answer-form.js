// The gold answer form in the admin (campaigns/admin/content.py, GoldAnswerAdmin): the best and
// worst output searches ask for the outputs of the segment chosen above them only, and choosing
// another segment clears the outputs chosen for the last one. Admin pages only: no worker page
// loads this, and it carries no answer.
'use strict';
{
  const $ = window.django && window.django.jQuery;
  if ($) {
    $.ajaxPrefilter((options) => {
      const segment = document.getElementById('id_segment');
      if (!segment || !segment.value || !options.url || !options.url.includes('/goldanswer/outputs/')) {
        return;
      }
      const asked = 'segment=' + encodeURIComponent(segment.value);
      options.data = options.data ? options.data + '&' + asked : asked;
    });
    $(document).on('change', '#id_segment', () => {
      $('select[data-gold-output]').val(null).trigger('change');
    });
  }
}
