from django.urls import path

from .views import rankings_view

urlpatterns = [path("rankings", rankings_view, name="rankings")]
