from django.db import models


class Row(models.Model):
    value = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"row {self.id}: {self.value}"
