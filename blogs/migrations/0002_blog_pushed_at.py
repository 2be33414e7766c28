from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("blogs", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="blog",
            name="pushed_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="blog",
            name="push_retried_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddIndex(
            model_name="blog",
            index=models.Index(fields=["pushed_at", "created_at"], name="blog_unpushed"),
        ),
    ]
